//! A runner stopped mid-task, and a clone that fails: reported, retried, and finished or failed
//! with git's reason.

use super::*;

#[tokio::test]
async fn a_runner_stopped_mid_task_reports_it_failed_and_another_runner_finishes_it() {
    let ai = fake_ai(review_answer).await;
    // The first question hangs: the first runner is mid-review when it is stopped.
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(500).set_delay(Duration::from_secs(30)))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&ai)
        .await;
    let World {
        app,
        scratch,
        // Kept alive: a dropped fake goes back to wiremock's pool and serves
        // another test.
        gitlab: _gitlab,
        ..
    } = World::new(&ai, &[("REVIEW_WORKERS_ENABLED", "false".to_owned())]).await;
    let key = api_key(&app).await;
    let work_dir = scratch.join("workspaces");
    let mut first =
        RunnerProcess::start(&app, &key, "first", &work_dir, scratch.join("first.log")).await;
    wait_until_online(&app, "first", &first).await;
    let task_id = send_webhook(&app, &fixture()).await;
    let mut phase = String::new();
    for _ in 0..300 {
        phase = app.sql(&format!(
            "SELECT coalesce(runner_phase, '') FROM review_tasks WHERE id = '{task_id}'"
        ));
        if phase == "reviewing" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(phase, "reviewing", "{}", first.output());

    // RUNNER_SHUTDOWN_GRACE_SECS is 1 here: the hanging review is cut short.
    let stopping = Instant::now();
    let status = first.terminate(Duration::from_secs(20)).await;
    assert!(status.success(), "{status:?}\n{}", first.output());
    assert!(
        stopping.elapsed() < Duration::from_secs(10),
        "{:?}",
        stopping.elapsed()
    );
    let state = runner_state(&app, "first").await;
    assert_eq!(state["status"], "offline", "{state}");
    assert_eq!(state["totalJobsFailed"], 1, "{state}");
    let logs = app.sql(&format!(
        "SELECT string_agg(message, chr(10) ORDER BY line_no) FROM review_task_logs WHERE task_id = '{task_id}'"
    ));
    assert!(
        logs.contains("failed: the runner was stopped before the task finished"),
        "{logs}"
    );
    assert_eq!(
        app.sql(&format!(
            "SELECT status || ' ' || attempts FROM review_tasks WHERE id = '{task_id}'"
        )),
        "queued 1",
        "given back for another attempt"
    );

    let second =
        RunnerProcess::start(&app, &key, "second", &work_dir, scratch.join("second.log")).await;
    let task = wait_for(&app, &task_id).await;
    assert_eq!(task["status"], "completed", "{task}\n{}", second.output());
    assert_eq!(runner_state(&app, "second").await["totalJobsCompleted"], 1);
    let _ = std::fs::remove_dir_all(&scratch);
}

#[tokio::test]
async fn a_clone_that_fails_is_reported_and_retried_until_the_task_fails_with_git_s_reason() {
    let ai = fake_ai(review_answer).await;
    let World {
        app,
        scratch,
        gitlab: _gitlab,
        ..
    } = World::new(&ai, &[("REVIEW_WORKERS_ENABLED", "false".to_owned())]).await;
    // The repository is gone from where the project says it is.
    app.sql(&format!(
        "UPDATE projects SET web_url = 'file://{}'",
        scratch.join("missing.git").display()
    ));
    let key = api_key(&app).await;
    let work_dir = scratch.join("workspaces");
    let runner =
        RunnerProcess::start(&app, &key, "unlucky", &work_dir, scratch.join("r.log")).await;
    wait_until_online(&app, "unlucky", &runner).await;
    let task = wait_for(&app, &send_webhook(&app, &fixture()).await).await;
    assert_eq!(task["status"], "failed", "{task}\n{}", runner.output());
    assert_eq!(task["attempts"], 3, "every attempt used");
    assert!(
        task["errorMessage"]
            .as_str()
            .unwrap()
            .contains("git fetch failed"),
        "{task}"
    );
    let state = runner_state(&app, "unlucky").await;
    assert_eq!(state["totalJobsFailed"], 3, "{state}");
    assert_eq!(state["totalJobsCompleted"], 0);
    assert!(
        ai.received_requests().await.unwrap().is_empty(),
        "nothing to review"
    );
    let review = app.sql(&format!(
        "SELECT status FROM reviews WHERE id = '{}'",
        task["reviewId"].as_str().unwrap_or_default()
    ));
    assert_eq!(review, "failed");
    let left: Vec<_> = std::fs::read_dir(&work_dir).unwrap().collect();
    assert!(
        left.is_empty(),
        "workspaces removed after failures too: {left:?}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
