//! What AI calls cost on a review's page, and a project's model and monthly budget.

use super::*;

#[tokio::test]
async fn a_review_page_shows_what_its_ai_calls_cost_or_a_dash_when_unpriced() {
    let app = TestApp::spawn().await;
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url) \
         SELECT id, 'hostA', '1', 'svc', 'g/svc', 'https://gitlab.example.com/g/svc' FROM platform_configs",
    );
    let review = |title: &str| {
        app.sql(&format!(
            "INSERT INTO reviews (project_id, project_name, mr_iid, mr_title, mr_url, source_branch, target_branch, \
                                  ai_provider, ai_model, triggered_by, head_commit_sha) \
             SELECT id, name, 1, '{title}', 'https://x/1', 'a', 'main', 'p', 'm', 'auto', 'abc' FROM projects RETURNING id"
        ))
    };
    let priced = review("Priced");
    let unpriced = review("Unpriced");
    app.sql(&format!(
        "INSERT INTO ai_call_logs (review_id, provider, model, status, prompt_tokens, completion_tokens, total_tokens, cost_usd) \
         VALUES ('{priced}', 'p', 'm', 'success', 1000, 200, 1200, 0.003), ('{priced}', 'p', 'm', 'success', 500, 100, 600, 0.0012), \
                ('{unpriced}', 'p', 'm', 'success', 1000, 200, 1200, NULL)"
    ));
    let root = app.root().await;
    let html = page(&root, &format!("/reviews/{priced}")).await;
    assert!(html.contains("id=\"review-cost\">$0.0042<"), "{html}");
    assert!(
        html.contains("$0.0030") && html.contains("$0.0012"),
        "no cost per call"
    );
    let html = page(&root, &format!("/reviews/{unpriced}")).await;
    assert!(html.contains("id=\"review-cost\">—<"));
    assert!(html.contains("no price set"));
}

/// The project form's fields with this AI choice and budget.
fn settings<'a>(ai: &'a str, budget: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("enabled", "on"),
        ("auto_review", "inherit"),
        ("inherit_ignore", "on"),
        ("ai_config", ai),
        ("monthly_budget", budget),
    ]
}

#[tokio::test]
async fn a_projects_page_binds_it_to_a_model_and_sets_or_removes_its_monthly_budget() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let ai = create(
        &root,
        config("Large", "https://a.example.com/v1", KEY, "big-1"),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.sql(
        "INSERT INTO platform_configs (name, platform_type, base_url) VALUES ('G', 'hostA', 'https://gitlab.example.com')",
    );
    let project = app.sql(
        "INSERT INTO projects (platform_config_id, platform_type, platform_project_id, name, full_path, web_url) \
         SELECT id, 'hostA', '7', 'svc', 'group/svc', 'https://gitlab.example.com/group/svc' FROM platform_configs RETURNING id",
    );
    let path = format!("/projects/{project}");
    let before = page(&root, &path).await;
    assert!(before.contains("PROVIDERA_*"), "no model bound yet");

    let (_, saved) = submit(&root, &path, &settings(&ai, "$25.5")).await;
    assert!(saved.contains("Settings saved."), "{saved}");
    assert_eq!(
        app.sql(&format!(
            "SELECT ai_config_id, monthly_budget_usd FROM projects WHERE id = '{project}'"
        )),
        format!("{ai}|25.5")
    );
    assert!(saved.contains("Large (big-1)"), "the AI in use is named");
    assert!(
        saved.contains("value=\"25.5\""),
        "the budget is shown in its field"
    );
    assert!(
        saved.contains("Spent this month: $0.00 of $25.5"),
        "{saved}"
    );

    // Refusals: shown as a flash, nothing changed.
    for (budget, says) in [("ten", "a budget is a number of USD"), ("-3", "from 0 to")] {
        let (_, refused) = submit(&root, &path, &settings("inherit", budget)).await;
        assert!(
            refused.contains("flash error") && refused.contains(says),
            "{budget}: {refused}"
        );
    }
    let (_, refused) = submit(&root, &path, &settings("not-an-id", "")).await;
    assert!(
        refused.contains("choose an AI model from the list"),
        "{refused}"
    );
    assert_eq!(
        app.sql(&format!(
            "SELECT ai_config_id, monthly_budget_usd FROM projects WHERE id = '{project}'"
        )),
        format!("{ai}|25.5")
    );

    // Blank: no budget; `inherit`: the default model again.
    let (_, cleared) = submit(&root, &path, &settings("inherit", "")).await;
    assert!(cleared.contains("Settings saved."), "{cleared}");
    assert_eq!(
        app.sql(&format!(
            "SELECT ai_config_id IS NULL, monthly_budget_usd IS NULL FROM projects WHERE id = '{project}'"
        )),
        "t|t"
    );
}
