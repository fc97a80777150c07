//! What AI calls cost, as the stores add it up: per review (its detail), over the
//! review list's filter, per project this month, and by provider and model for the
//! metrics. A call without a price adds nothing, and a review with none has no cost.

use super::{Stores, seed};
use chrono::{TimeDelta, Utc};
use reviewd_domain::PageRequest;
use reviewd_domain::model::review::AiCallRecord;
use reviewd_domain::model::review_views::ReviewFilter;
use uuid::Uuid;

pub async fn run(s: &Stores) {
    costs_add_up_per_review_list_project_and_model(s).await;
}

fn call(review_id: Option<Uuid>, model: &str, cost_usd: Option<f64>) -> AiCallRecord {
    AiCallRecord {
        review_id,
        file_path: Some("a.rs".into()),
        provider: "Priced".into(),
        model: model.into(),
        success: true,
        duration_ms: 10,
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        cost_usd,
        error_message: None,
    }
}

async fn costs_add_up_per_review_list_project_and_model(s: &Stores) {
    let project = seed::project(s).await;
    let priced = seed::review(s, &project, 71, "h1").await;
    let unpriced = seed::review(s, &project, 72, "h1").await;
    // Binary fractions, so that sums compare exactly.
    for c in [
        call(Some(priced.id), "m-1", Some(0.25)),
        call(Some(priced.id), "m-2", Some(0.5)),
        call(Some(unpriced.id), "m-1", None),
        // A call whose review is gone counts in the totals, not in a project's.
        call(None, "m-1", Some(0.125)),
    ] {
        s.reviews.log_ai_call(c).await.unwrap();
    }

    let detail = |id| async move { s.review_queries.detail(id).await.unwrap().cost_usd };
    assert_eq!(detail(priced.id).await, Some(0.75));
    assert_eq!(detail(unpriced.id).await, None, "unknown, not 0");

    let list = |filter: ReviewFilter| async move {
        let (_, stats) = s
            .review_queries
            .list(&filter, PageRequest::new(1, 10, 10))
            .await
            .unwrap();
        stats.total_cost_usd
    };
    assert_eq!(list(ReviewFilter::default()).await, 0.75);
    let failed = ReviewFilter {
        status: Some("failed".into()),
        ..ReviewFilter::default()
    };
    assert_eq!(list(failed).await, 0.0, "the filter applies");

    let stats = s.projects.stats().await.unwrap();
    assert_eq!(
        (stats.cost_usd_total, stats.cost_usd_this_month),
        (0.875, 0.875)
    );
    assert_eq!(stats.cost_by_project.len(), 1);
    assert_eq!(
        (
            stats.cost_by_project[0].project_id,
            stats.cost_by_project[0].cost_usd
        ),
        (project.id, 0.75)
    );

    let offline_before = Utc::now() - TimeDelta::minutes(1);
    let counts = s.monitoring.state_counts(offline_before).await.unwrap();
    assert_eq!(
        counts.ai_costs,
        vec![
            ("Priced".to_owned(), "m-1".to_owned(), 0.375),
            ("Priced".to_owned(), "m-2".to_owned(), 0.5),
        ]
    );
}
