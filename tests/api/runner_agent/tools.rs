//! The runner's analyzers for real: ruff and semgrep (from PyPI) and shellcheck
//! (Debian's), as `scripts/test.sh` installs them, run in the runner's checkout of
//! an MR with planted problems. Their findings on changed lines reach the model as
//! evidence and the MR as comments naming tool and rule, one per line and rule
//! with the model's; findings on lines the MR did not change are not posted; a
//! planted secret is posted masked even with no model at all.

use super::*;

/// A PATH holding ruff, semgrep and shellcheck: `REVIEWD_ANALYZERS_PATH` (set by
/// scripts/test.sh) before the process's own.
fn analyzers_path() -> String {
    let path = match std::env::var("REVIEWD_ANALYZERS_PATH") {
        Ok(tools) => format!("{tools}:{}", std::env::var("PATH").unwrap_or_default()),
        Err(_) => std::env::var("PATH").unwrap_or_default(),
    };
    for tool in ["ruff", "semgrep", "shellcheck"] {
        assert!(
            std::env::split_paths(&path).any(|d| d.join(tool).is_file()),
            "{tool} is not installed: these tests run the real analyzers; ./scripts/test.sh installs \
             them (ruff and semgrep into a virtual environment, shellcheck with apt) and sets \
             REVIEWD_ANALYZERS_PATH"
        );
    }
    path
}

const SEMGREP_RULES: &str = "rules:
  - id: no-eval
    pattern: eval(...)
    message: eval() runs whatever text it is given
    languages: [python]
    severity: ERROR
";

/// The planted secret (an AWS access key id's shape).
const AWS_KEY: &str = "AKIAZ3MHQ2XYV7TQ4B5D";

/// A bare repository whose MR (base..head) plants: an unused import and an
/// `eval` in `app.py` (an unused import is also on an unchanged line), an
/// unquoted variable in `deploy.sh`, and an AWS key in `settings.py`. Returns the
/// bare repository, the two SHAs and each changed file's diff as GitLab gives it.
fn planted_repository(root: &Path) -> (PathBuf, String, String, Vec<(String, String, bool)>) {
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(
        work.join("app.py"),
        "import os\nimport sys\n\nprint(sys.argv)\n",
    )
    .unwrap();
    std::fs::write(work.join("deploy.sh"), "#!/bin/sh\necho start\n").unwrap();
    std::fs::write(work.join(".semgrep.yml"), SEMGREP_RULES).unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "--quiet", "-m", "base"]);
    let base = git(&work, &["rev-parse", "HEAD"]);
    git(&work, &["checkout", "--quiet", "-b", "runner"]);
    std::fs::write(
        work.join("app.py"),
        "import os\nimport sys\nimport json\n\nprint(sys.argv)\nresult = eval(sys.argv[1])\n",
    )
    .unwrap();
    std::fs::write(
        work.join("deploy.sh"),
        "#!/bin/sh\necho start\nrm -rf $1/tmp\n",
    )
    .unwrap();
    std::fs::write(
        work.join("settings.py"),
        format!("REGION = \"eu-west-1\"\nAWS_ACCESS_KEY_ID = \"{AWS_KEY}\"\n"),
    )
    .unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "--quiet", "-m", "planted"]);
    let head = git(&work, &["rev-parse", "HEAD"]);
    let diffs = ["app.py", "deploy.sh", "settings.py"]
        .iter()
        .map(|path| {
            let text = git(&work, &["diff", &base, &head, "--", path]);
            let hunks = text[text.find("@@").unwrap()..].to_owned() + "\n";
            ((*path).to_owned(), hunks, *path == "settings.py")
        })
        .collect();
    let bare = bare_clone(root, &work);
    (bare, base, head, diffs)
}

async fn mount_planted_mr(
    gitlab: &FakeGitlab,
    base: &str,
    head: &str,
    diffs: &[(String, String, bool)],
) {
    let mut mr = crate::review_pipeline::mr(head);
    mr["diff_refs"] = json!({ "base_sha": base, "start_sha": base, "head_sha": head });
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/merge_requests/1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(mr))
        .mount(&gitlab.server)
        .await;
    let files: Vec<Value> = diffs
        .iter()
        .map(|(p, d, new)| {
            let mut f = file(p, d);
            f["new_file"] = json!(new);
            f
        })
        .collect();
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/merge_requests/1/diffs"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!(files))
                .insert_header("x-next-page", ""),
        )
        .mount(&gitlab.server)
        .await;
}

/// A model that confirms every finding it is shown (`T1`, `T2`... in the
/// prompt), and on `app.py` raises the unused `json` import itself, naming the
/// rule: that one must reach the MR once.
fn confirming_model(prompt: &str) -> Value {
    let ids: Vec<String> = prompt
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.len() > 1 && w.starts_with('T') && w[1..].chars().all(|c| c.is_ascii_digit()))
        .map(str::to_owned)
        .collect();
    let comments = if prompt.contains("File under review: app.py") {
        vec![
            json!({ "line": 3, "severity": "warning", "message": "`json` is imported but never used (F401).", "suggestion": null }),
        ]
    } else {
        Vec::new()
    };
    let verdicts: Vec<Value> = ids
        .iter()
        .map(|id| json!({ "id": id, "verdict": "confirmed", "reason": "real on this line" }))
        .collect();
    let mut answer = json!({ "summary": "Reviewed.", "comments": comments });
    if !verdicts.is_empty() {
        answer["toolFindings"] = json!(verdicts);
    }
    answer
}

struct PlantedWorld {
    app: TestApp,
    gitlab: FakeGitlab,
    scratch: PathBuf,
}

async fn planted_world(vars: &[(&str, String)], ai: Option<&wiremock::MockServer>) -> PlantedWorld {
    let scratch =
        std::env::temp_dir().join(format!("reviewd-tools-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&scratch).unwrap();
    let (bare, base, head, diffs) = planted_repository(&scratch);
    let gitlab = FakeGitlab::start("glpat-pipeline").await;
    gitlab.with_projects(1, "svc").await;
    mount_posting(&gitlab).await;
    mount_planted_mr(&gitlab, &base, &head, &diffs).await;
    let app = match ai {
        Some(ai) => app_with_ai(ai, vars).await,
        None => {
            let mut all = vec![("REVIEW_WORKERS_ENABLED", "true".to_owned())];
            all.extend(vars.iter().map(|(k, v)| (*k, v.clone())));
            TestApp::spawn_with(&all).await
        }
    };
    setup_project(&app, &gitlab).await;
    app.sql(&format!(
        "UPDATE projects SET web_url = 'file://{}'",
        bare.display()
    ));
    PlantedWorld {
        app,
        gitlab,
        scratch,
    }
}

async fn start_runner(world: &PlantedWorld, name: &str) -> RunnerProcess {
    start_runner_with(world, name, &analyzers_path(), &[]).await
}

async fn start_runner_with(
    world: &PlantedWorld,
    name: &str,
    path: &str,
    extra: &[(&str, &str)],
) -> RunnerProcess {
    let key = api_key(&world.app).await;
    let runner = RunnerProcess::start_with_path(
        &world.app,
        &key,
        name,
        &world.scratch.join("workspaces"),
        world.scratch.join("runner.log"),
        (path, extra),
    )
    .await;
    wait_until_online(&world.app, name, &runner).await;
    runner
}

#[tokio::test]
async fn the_runner_runs_the_repositorys_analyzers_and_posts_their_findings_on_changed_lines() {
    let ai = fake_ai(confirming_model).await;
    let world = planted_world(&[("RUNNER_CLAIM_GRACE_MS", "30000".to_owned())], Some(&ai)).await;
    let runner = start_runner(&world, "tools-runner").await;

    let task = wait_for(&world.app, &send_webhook(&world.app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}\n{}", runner.output());
    let log = runner.output();

    // The model was shown each tool's finding on the lines the MR added.
    let prompts = reviewd_testkit::file_prompts(&ai).await;
    let app_prompt = prompts
        .iter()
        .find(|p| p.contains("File under review: app.py"))
        .unwrap_or_else(|| panic!("no prompt for app.py: {prompts:?}\n{log}"));
    assert!(
        app_prompt.contains("line 3 ruff F401"),
        "{app_prompt}\n{log}"
    );
    assert!(
        app_prompt.contains("line 6 semgrep no-eval"),
        "{app_prompt}\n{log}"
    );
    assert!(
        !app_prompt.contains("line 1 ruff F401"),
        "the unused `os` import is on a line the MR did not change: {app_prompt}"
    );
    let sh_prompt = prompts
        .iter()
        .find(|p| p.contains("File under review: deploy.sh"))
        .unwrap();
    assert!(
        sh_prompt.contains("line 3 shellcheck SC2086"),
        "{sh_prompt}\n{log}"
    );
    assert!(
        !prompts.iter().any(|p| p.contains(AWS_KEY)),
        "the key never reaches the model"
    );

    // On the MR: one comment per line and rule, naming the tool.
    let discussions = posted(&world.gitlab, "POST", "/discussions").await;
    let at = |file: &str, line: u64| -> Vec<String> {
        discussions
            .iter()
            .filter(|d| d["position"]["new_path"] == file && d["position"]["new_line"] == line)
            .map(|d| d["body"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let import = at("app.py", 3);
    assert_eq!(
        import.len(),
        1,
        "the model's comment and ruff's are one: {import:?}"
    );
    assert!(
        import[0].contains("never used") && import[0].contains("**ruff** `F401`"),
        "{import:?}"
    );
    let eval = at("app.py", 6);
    assert!(
        eval.len() == 1 && eval[0].contains("**semgrep** `no-eval`"),
        "{eval:?}\n{log}"
    );
    assert!(at("app.py", 1).is_empty(), "nothing on an unchanged line");
    let quoting = at("deploy.sh", 3);
    assert!(
        quoting.len() == 1 && quoting[0].contains("**shellcheck** `SC2086`"),
        "{quoting:?}"
    );
    let secret = at("settings.py", 2);
    assert_eq!(secret.len(), 1, "{discussions:?}");
    assert!(
        secret[0].contains("**reviewd-secrets**")
            && secret[0].contains("[secret masked by reviewd]")
    );
    assert!(
        !discussions.iter().any(|d| d.to_string().contains(AWS_KEY)),
        "the key is never posted"
    );

    // The runner's log says what ran and how it went.
    for tool in ["ruff: ", "semgrep: ", "shellcheck: "] {
        assert!(log.contains(tool), "{tool} in the log:\n{log}");
    }
    let _ = std::fs::remove_dir_all(&world.scratch);
}

#[tokio::test]
async fn with_the_model_switched_off_a_planted_secret_is_still_posted_masked() {
    // No PROVIDERA_ENDPOINT on the server, no RUNNER_AI_ENDPOINT on the runner.
    let world = planted_world(&[("RUNNER_CLAIM_GRACE_MS", "30000".to_owned())], None).await;
    let runner = start_runner(&world, "no-model-runner").await;

    let task = wait_for(&world.app, &send_webhook(&world.app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}\n{}", runner.output());

    let discussions = posted(&world.gitlab, "POST", "/discussions").await;
    assert_eq!(
        discussions.len(),
        1,
        "only the secret: the linters' findings wait for a model's confirmation: {discussions:?}"
    );
    let d = &discussions[0];
    assert_eq!(d["position"]["new_path"], "settings.py");
    assert_eq!(d["position"]["new_line"], 2);
    let body = d["body"].as_str().unwrap();
    assert!(
        body.contains("AWS access key") && body.contains("[secret masked by reviewd]"),
        "{body}"
    );
    assert!(!d.to_string().contains(AWS_KEY));
    assert!(
        runner
            .output()
            .contains("only the analyzers' findings are reported"),
        "{}",
        runner.output()
    );
    let _ = std::fs::remove_dir_all(&world.scratch);
}

/// A cargo project whose MR turns a tail expression into a `return` (clippy's
/// `needless_return`, warned by default) on line 6 of `src/main.rs`.
fn rust_repository(root: &Path) -> (PathBuf, String, String, Vec<(String, String, bool)>) {
    let work = root.join("work");
    std::fs::create_dir_all(work.join("src")).unwrap();
    git(&work, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(
        work.join("Cargo.toml"),
        "[package]\nname = \"planted\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    let main = |body: &str| {
        format!(
            "fn main() {{\n    println!(\"{{}}\", one());\n}}\n\nfn one() -> i32 {{\n{body}\n}}\n"
        )
    };
    std::fs::write(work.join("src/main.rs"), main("    1")).unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "--quiet", "-m", "base"]);
    let base = git(&work, &["rev-parse", "HEAD"]);
    std::fs::write(work.join("src/main.rs"), main("    return 1;")).unwrap();
    git(&work, &["commit", "--quiet", "-am", "return"]);
    let head = git(&work, &["rev-parse", "HEAD"]);
    let text = git(&work, &["diff", &base, &head, "--", "src/main.rs"]);
    let diffs = vec![(
        "src/main.rs".to_owned(),
        text[text.find("@@").unwrap()..].to_owned() + "\n",
        false,
    )];
    let bare = bare_clone(root, &work);
    (bare, base, head, diffs)
}

#[tokio::test]
async fn on_a_runner_that_trusts_the_repository_clippy_builds_it_and_its_lints_are_posted() {
    let ai = fake_ai(confirming_model).await;
    let scratch =
        std::env::temp_dir().join(format!("reviewd-clippy-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&scratch).unwrap();
    let (bare, base, head, diffs) = rust_repository(&scratch);
    let gitlab = FakeGitlab::start("glpat-pipeline").await;
    gitlab.with_projects(1, "svc").await;
    mount_posting(&gitlab).await;
    mount_planted_mr(&gitlab, &base, &head, &diffs).await;
    let app = app_with_ai(&ai, &[("RUNNER_CLAIM_GRACE_MS", "30000".to_owned())]).await;
    setup_project(&app, &gitlab).await;
    app.sql(&format!(
        "UPDATE projects SET web_url = 'file://{}'",
        bare.display()
    ));
    let world = PlantedWorld {
        app,
        gitlab,
        scratch,
    };
    // The toolchain this test was built with: cargo and clippy side by side.
    let cargo = PathBuf::from(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    let toolchain = cargo
        .parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    let path = format!("{toolchain}:{}", std::env::var("PATH").unwrap_or_default());
    let runner = start_runner_with(
        &world,
        "clippy-runner",
        &path,
        &[("RUNNER_TOOLS_REPO_COMMANDS", "true")],
    )
    .await;

    let task = wait_for(&world.app, &send_webhook(&world.app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}\n{}", runner.output());
    let discussions = posted(&world.gitlab, "POST", "/discussions").await;
    let lint: Vec<&Value> = discussions
        .iter()
        .filter(|d| d["position"]["new_path"] == "src/main.rs" && d["position"]["new_line"] == 6)
        .collect();
    assert_eq!(lint.len(), 1, "{discussions:?}\n{}", runner.output());
    assert!(
        lint[0]["body"]
            .as_str()
            .unwrap()
            .contains("**clippy** `clippy::needless_return`"),
        "{lint:?}"
    );
    // `--all-targets` lints the binary and its test build: the same lint twice,
    // one comment.
    let log = runner.output();
    assert!(
        log.contains("clippy: ")
            && log.contains(" finding(s) in ")
            && !log.contains("clippy: 0 finding"),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&world.scratch);
}
