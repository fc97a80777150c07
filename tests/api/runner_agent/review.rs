//! A task reviewed by the runner binary end to end: cloned, reviewed, reported, and its
//! comments and suggestions posted by the server as its own.

use super::*;

#[tokio::test]
async fn the_runner_binary_clones_reviews_and_reports_and_the_server_posts_its_comments() {
    let ai = fake_ai(review_answer).await;
    // The server's own workers run too: a fresh task is left to the capable runner.
    let World {
        app,
        gitlab,
        scratch,
        head,
    } = World::new(&ai, &[("RUNNER_CLAIM_GRACE_MS", "30000".to_owned())]).await;
    let key = api_key(&app).await;
    let work_dir = scratch.join("workspaces");
    let mut runner = RunnerProcess::start(
        &app,
        &key,
        "e2e-runner",
        &work_dir,
        scratch.join("runner.log"),
    )
    .await;
    wait_until_online(&app, "e2e-runner", &runner).await;

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}\n{}", runner.output());

    // The runner asked the model with the diff it computed from the clone (the
    // server sends no diff to a runner).
    let prompts: Vec<String> = ai
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == "/v1/chat/completions")
        .filter(|r| !reviewd_testkit::is_summary_call(r))
        .map(|r| {
            assert_eq!(
                r.headers.get("authorization").and_then(|v| v.to_str().ok()),
                Some("Bearer sk-fake"),
                "the runner uses the task's AI key"
            );
            reviewd_testkit::prompt_of(r)
        })
        .collect();
    assert_eq!(prompts.len(), 1, "{prompts:?}");
    assert!(prompts[0].contains("File under review: src/app.rs"));
    assert!(prompts[0].contains("let x = foo().unwrap();"));
    assert!(
        prompts[0].contains("[definition] src/foo.rs lines 1-3 `foo`")
            && prompts[0].contains("    2     None"),
        "the runner read the definition of foo from its clone: {}",
        prompts[0]
    );
    assert!(prompts[0].contains("[enclosing] src/app.rs lines 1-4 `main`"));

    // Placed and posted by the server exactly as its own reviews are.
    let discussions = posted(&gitlab, "POST", "/discussions").await;
    let mut lines: Vec<u64> = discussions
        .iter()
        .map(|d| d["position"]["new_line"].as_u64().unwrap())
        .collect();
    lines.sort_unstable();
    assert_eq!(lines, vec![2, 2], "{discussions:?}");
    assert!(
        discussions
            .iter()
            .all(|d| d["position"]["head_sha"] == head.as_str())
    );
    let notes = posted(&gitlab, "POST", "/notes").await;
    assert_eq!(notes.len(), 1, "one summary note");

    let review_id = task["reviewId"].as_str().unwrap();
    assert_eq!(
        app.sql(&format!(
            "SELECT provider FROM ai_call_logs WHERE review_id = '{review_id}'"
        )),
        "runner:e2e-runner",
        "the review was done by the runner, not the server's workers"
    );
    let task_id = task["id"].as_str().unwrap();
    let metrics: Value = serde_json::from_str(&app.sql(&format!(
        "SELECT metrics FROM review_tasks WHERE id = '{task_id}'"
    )))
    .unwrap();
    assert_eq!(
        metrics["tokensUsed"], 120,
        "the file's call alone: one file needs no summary call: {metrics}"
    );
    let root = app.root().await;
    let rounds = json(
        root.get(&format!("/api/reviews/{review_id}/rounds")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        rounds["data"]["rounds"][0]["context"]["source"], "checkout",
        "what the runner's context read is recorded with the round: {rounds}"
    );
    let files = json(
        root.get(&format!("/api/reviews/{review_id}/files")).await,
        StatusCode::OK,
    )
    .await;
    assert!(
        files["data"]["files"][0]["context"]["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["kind"] == "definition" && p["path"] == "src/foo.rs"),
        "{files}"
    );
    assert!(metrics["durationMs"].as_u64().unwrap() >= metrics["reviewMs"].as_u64().unwrap());
    let phases = app.sql(&format!(
        "SELECT string_agg(message, chr(10) ORDER BY line_no) FROM review_task_logs WHERE task_id = '{task_id}'"
    ));
    assert!(phases.contains("fetching"), "{phases}");
    assert!(phases.contains("model fake-model answered"), "{phases}");
    assert!(
        phases.contains("reviewed 1 file(s), 2 comment(s)"),
        "{phases}"
    );

    let state = runner_state(&app, "e2e-runner").await;
    assert_eq!(state["totalJobsCompleted"], 1, "{state}");
    assert_eq!(state["totalJobsFailed"], 0, "{state}");
    assert_eq!(
        state["tags"],
        json!(["e2e", "linux"]),
        "from RUNNER_TAGS, sorted"
    );

    // The workspace is gone; no secret reached the runner's output or the task log.
    let left: Vec<_> = std::fs::read_dir(&work_dir).unwrap().collect();
    assert!(left.is_empty(), "workspace left behind: {left:?}");
    let output = runner.output();
    for secret in ["sk-fake", key.as_str(), "glpat-pipeline"] {
        assert!(
            !output.contains(secret),
            "runner output shows a secret:\n{output}"
        );
        assert!(
            !phases.contains(secret),
            "task log shows a secret:\n{phases}"
        );
    }

    // SIGTERM: a clean exit and the runner shown offline.
    let stopping = Instant::now();
    let status = runner.terminate(Duration::from_secs(15)).await;
    assert!(
        stopping.elapsed() < Duration::from_secs(5),
        "an idle runner stops at once:\n{}",
        runner.output()
    );
    assert!(status.success(), "{status:?}\n{}", runner.output());
    assert_eq!(runner_state(&app, "e2e-runner").await["status"], "offline");
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A suggestion on the added line 2 (fits) and one on the context line 3 (moved to
/// line 2 by the placement, so stripped).
fn suggesting_answer(_prompt: &str) -> Value {
    json!({ "summary": "Adds an unwrap.", "comments": [
        { "line": 2, "severity": "error", "message": "unwrap() panics when foo fails; return the error instead.",
          "suggestion": { "startLine": 2, "endLine": 2, "code": "    let x = foo()?;" } },
        { "line": 3, "severity": "info", "message": "Consider logging before run().",
          "suggestion": { "startLine": 3, "endLine": 3, "code": "    log(); run();" } },
    ]})
}

#[tokio::test]
async fn a_runners_suggestion_is_posted_as_the_servers_own() {
    let ai = fake_ai(suggesting_answer).await;
    let World {
        app,
        gitlab,
        scratch,
        ..
    } = World::new(&ai, &[("REVIEW_WORKERS_ENABLED", "false".to_owned())]).await;
    let key = api_key(&app).await;
    let runner = RunnerProcess::start(
        &app,
        &key,
        "suggesting",
        &scratch.join("workspaces"),
        scratch.join("runner.log"),
    )
    .await;
    wait_until_online(&app, "suggesting", &runner).await;

    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "completed", "{task}\n{}", runner.output());

    let mut bodies: Vec<String> = posted(&gitlab, "POST", "/discussions")
        .await
        .iter()
        .map(|d| d["body"].as_str().unwrap().to_owned())
        .collect();
    bodies.sort();
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    assert!(
        bodies[0].starts_with("**error**: unwrap() panics")
            && bodies[0].ends_with("-->\n\n```suggestion:-0+0\n    let x = foo()?;\n```"),
        "{}",
        bodies[0]
    );
    assert!(
        bodies[1].starts_with("**info**: Consider logging") && !bodies[1].contains("```suggestion"),
        "a comment moved off its line goes without its suggestion: {}",
        bodies[1]
    );
    let review = task["reviewId"].as_str().unwrap();
    let comments = json(
        app.root()
            .await
            .get(&format!("/api/reviews/{review}/comments"))
            .await,
        StatusCode::OK,
    )
    .await;
    let suggestions: Vec<&Value> = comments["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["suggestion"])
        .collect();
    assert!(
        suggestions
            .contains(&&json!({ "startLine": 2, "endLine": 2, "code": "    let x = foo()?;" }))
            && suggestions.contains(&&Value::Null),
        "{suggestions:?}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
