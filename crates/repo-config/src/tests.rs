use super::*;
use reviewd_domain::model::grade::Severity;
use reviewd_domain::review::gate::RepoGate;
use reviewd_domain::review::repo_config::{RepoContext, RepoRule, read};
use reviewd_domain::review::tools::PostMode;
use reviewd_domain::review::tools::settings::{RepoTools, ToolCommand};

fn parse(text: &str) -> Result<RepoConfig, String> {
    read(text.as_bytes(), &YamlRepoConfig)
}

#[test]
fn every_key_is_read() {
    let config = parse(
        "ignore: [\"docs/**\", \"*.lock\"]\nrules:\n  - name: SQL\n    paths: [\"src/db/**\"]\n    instructions: Queries must be parameterised.\ntemplate: Security\nminSeverity: warning\nlanguage: French\nskipDrafts: true\ninstructions: Every query goes through db::query.\ncontext:\n  budgetTokens: 8000\n  always: [docs/architecture.md]\n  never: [\"fixtures/**\"]\ngate:\n  failOn: warning\n  minRating: B\ntools:\n  run: [ruff, semgrep]\n  post: all\n  timeoutSecs: 60\n  memoryMb: 512\n  semgrepRules: [ci/semgrep.yml]\n  commands:\n    - name: bandit\n      run: [bandit, -r, ., -f, sarif, -o, out.sarif]\n      sarif: out.sarif\n",
    )
    .unwrap();
    assert_eq!(
        config,
        RepoConfig {
            ignore: Some(vec!["docs/**".into(), "*.lock".into()]),
            rules: vec![RepoRule {
                name: "SQL".into(),
                paths: vec!["src/db/**".into()],
                instructions: "Queries must be parameterised.".into(),
            }],
            template: Some("Security".into()),
            min_severity: Some(Severity::Warning),
            language: Some("French".into()),
            skip_drafts: true,
            instructions: Some("Every query goes through db::query.".into()),
            context: Some(RepoContext {
                budget_tokens: Some(8_000),
                always: vec!["docs/architecture.md".into()],
                never: vec!["fixtures/**".into()],
            }),
            gate: Some(RepoGate {
                enabled: None,
                fail_on: Some("warning".into()),
                min_rating: Some("B".into()),
            }),
            tools: Some(RepoTools {
                run: Some(vec!["ruff".into(), "semgrep".into()]),
                post: PostMode::All,
                timeout_secs: Some(60),
                memory_mb: Some(512),
                semgrep_rules: Some(vec!["ci/semgrep.yml".into()]),
                commands: vec![ToolCommand {
                    name: "bandit".into(),
                    run: ["bandit", "-r", ".", "-f", "sarif", "-o", "out.sarif"]
                        .map(String::from)
                        .to_vec(),
                    sarif: "out.sarif".into(),
                }],
            }),
        }
    );
    assert_eq!(parse("{}\n").unwrap(), RepoConfig::default());
}

#[test]
fn tools_are_checked_past_their_types() {
    let read = |text: &str| {
        reviewd_domain::review::repo_config::read(text.as_bytes(), &YamlRepoConfig).unwrap_err()
    };
    assert!(read("tools:\n  run: [pylint]\n").contains("pylint"));
    assert!(read("tools:\n  post: some\n").contains("some"));
    assert!(read("tools:\n  timeoutSecs: 0\n").contains("timeoutSecs"));
    let outside = read(
        "tools:\n  commands:\n    - name: x\n      run: [x]\n      sarif: ../../etc/out.sarif\n",
    );
    assert!(outside.contains("inside the repository"), "{outside}");
    let fetched = read("tools:\n  semgrepRules: [\"https://semgrep.dev/c/p/python\"]\n");
    assert!(fetched.contains("not fetched"), "{fetched}");
}

#[test]
fn mistakes_are_named() {
    let unknown = parse("ignored: [\"docs/**\"]\n").unwrap_err();
    assert!(unknown.contains("ignored"), "{unknown}");
    let severity = parse("minSeverity: critical\n").unwrap_err();
    assert!(severity.contains("critical"), "{severity}");
    let syntax = parse("rules: [\n").unwrap_err();
    assert!(!syntax.is_empty());
    let rule_key = parse("rules:\n  - name: a\n    instructions: b\n    path: [x]\n").unwrap_err();
    assert!(rule_key.contains("path"), "{rule_key}");
    let gate = parse("gate:\n  failOn: fatal\n").unwrap_err();
    assert!(gate.contains("gate.failOn"), "{gate}");
    let gate_key = parse("gate:\n  minGrade: B\n").unwrap_err();
    assert!(gate_key.contains("minGrade"), "{gate_key}");
    let glob = parse("ignore: [\"a/[[\"]\n").unwrap_err();
    assert!(glob.starts_with("ignore: invalid pattern"), "{glob}");
}

#[test]
fn hostile_files_are_refused_cheaply() {
    let deep = format!("rules: {}{}\n", "[".repeat(40), "]".repeat(40));
    assert!(parse(&deep).is_err());
    let aliases = "a: &x [1]\nignore: *x\n";
    assert!(parse(aliases).is_err());
    assert!(parse("ignore: []\n---\nignore: []\n").is_err());
}
