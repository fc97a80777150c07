//! The analyzers on the dashboard: the review page lists each finding on a
//! changed line with what became of it (a hostile message shown as text), and the
//! project page says how to upload SARIF and lists the uploads.

use super::browser::Browser;
use super::flows::log_in;
use crate::helpers::{ROOT_EMAIL, ROOT_PASSWORD, TestApp};

#[tokio::test]
async fn the_review_and_project_pages_show_the_analyzers_findings_and_uploads() {
    let app = TestApp::spawn().await;
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    let project = app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url) \
         SELECT id, 'hostA', '7', 'svc', 'g/svc', 'https://gitlab.example.com/g/svc' FROM platform_configs RETURNING id",
    );
    let review = app.sql(
        "INSERT INTO reviews (project_id, project_name, mr_iid, mr_title, mr_url, source_branch, target_branch, \
                              ai_provider, ai_model, triggered_by, head_commit_sha, status) \
         SELECT id, name, 4, 'Adds the parser', 'https://x/4', 'parser', 'main', 'p', 'm', 'auto', \
                'da1560886d4f094c3e6c9ef40349f7d38b5d27d7', 'completed' \
         FROM projects RETURNING id",
    );
    let round = app.sql(&format!(
        "INSERT INTO review_rounds (review_id, round_number, is_differential, head_sha, file_count, completed_at) \
         VALUES ('{review}', 1, false, 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7', 1, now()) RETURNING id"
    ));
    let context = serde_json::json!({
        "tokens": 120, "budget": 6000, "pieces": [], "dropped": 0, "masked": 1,
        "tools": [
            { "tool": "ruff", "rule": "F401", "line": 3, "severity": "warning",
              "message": "`json` imported but unused", "outcome": "merged", "reason": "It is never used." },
            { "tool": "semgrep", "rule": "no-eval", "line": 6, "severity": "error",
              "message": "<img src=x onerror=alert(1)> eval() runs whatever text it is given",
              "outcome": "dismissed", "reason": "The argument is a constant here." },
            { "tool": "reviewd-secrets", "rule": "AWS-access-key", "line": 9, "severity": "error",
              "message": "a AWS access key is committed here (`KEY = \"[secret masked by reviewd]\"`).",
              "outcome": "posted" }
        ]
    });
    app.sql(&format!(
        "INSERT INTO review_files (review_id, round_id, file_path, change_type, status, comment_count, context) \
         VALUES ('{review}', '{round}', 'app.py', 'modified', 'completed', 2, '{}')",
        context.to_string().replace('\'', "''")
    ));
    app.sql(&format!(
        "INSERT INTO analysis_uploads (id, project_id, commit_sha, tools, findings, finding_count) \
         VALUES (gen_random_uuid(), '{project}', 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7', \
                 '[\"Semgrep OSS\"]', '[]', 12)"
    ));

    let browser = Browser::start(&app.base_url).await;
    log_in(&browser, ROOT_EMAIL, ROOT_PASSWORD).await;
    browser.goto(&format!("/reviews/{review}")).await;
    let panel = browser.text("#tools").await;
    for shown in [
        "ruff F401",
        "merged",
        "It is never used.",
        "semgrep no-eval",
        "dismissed",
        "The argument is a constant here.",
        "reviewd-secrets AWS-access-key",
        "[secret masked by reviewd]",
        "<img src=x onerror=alert(1)>",
    ] {
        assert!(panel.contains(shown), "{shown} not in {panel}");
    }
    assert!(!browser.exists("#tools img").await, "no markup from a tool");
    let rows = browser
        .eval("return document.querySelectorAll('#tools tr.tool-finding').length")
        .await;
    assert_eq!(rows, 3);
    browser
        .eval("document.getElementById('tools').scrollIntoView(); return null")
        .await;
    browser.screenshot("review-tools").await;

    browser.goto(&format!("/projects/{project}")).await;
    let analyzers = browser.text("#analyzers").await;
    assert!(
        analyzers.contains(&format!("/api/projects/{project}/sarif?commitSha=")),
        "{analyzers}"
    );
    assert!(
        analyzers.contains("da156088")
            && analyzers.contains("Semgrep OSS")
            && analyzers.contains("12"),
        "{analyzers}"
    );
}
