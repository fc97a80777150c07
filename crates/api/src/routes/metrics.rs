//! `GET /api/metrics` (public): the Prometheus text exposition format.

use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use reviewd_domain::model::monitoring::StateCounts;
use utoipa_actix_web::service_config::ServiceConfig;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_metrics);
}

/// Prometheus metrics, in the text exposition format.
///
/// HTTP requests by route template, method and status, their durations, the queue
/// depth, reviews, runners and notifications by state, and the AI spending by
/// provider and model.
#[utoipa::path(
    responses((
        status = 200,
        body = String,
        content_type = "text/plain",
        description = "The Prometheus text exposition format (version 0.0.4).",
    )),
    security(()),
)]
#[get("/metrics")]
async fn get_metrics(state: web::Data<AppState>) -> HttpResponse {
    // Gauges read now rather than kept up to date on every change.
    if let Ok(depth) = state.tasks.queue_depth().await {
        metrics::gauge!("reviewd_queue_depth").set(as_f64(depth));
    }
    let now = chrono::Utc::now();
    let offline_before = now
        - chrono::TimeDelta::milliseconds(
            i64::try_from(state.settings.runner_heartbeat_timeout.as_millis()).unwrap_or(i64::MAX),
        );
    match state.monitoring.state_counts(offline_before).await {
        Ok(counts) => set_state_gauges(&counts, now),
        Err(e) => tracing::warn!(error = %e, "metrics.state_counts_unavailable"),
    }
    let handle = crate::metrics::handle();
    handle.run_upkeep();
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(handle.render())
}

/// Gauges of reviews, runners and notifications by state. A state that no longer has
/// rows is reported as 0 rather than keeping its last value.
fn set_state_gauges(counts: &StateCounts, now: chrono::DateTime<chrono::Utc>) {
    const REVIEW_STATES: [&str; 3] = ["pending", "completed", "failed"];
    const RUNNER_STATES: [&str; 3] = ["online", "busy", "offline"];
    for state in REVIEW_STATES {
        let n = lookup(&counts.reviews, state);
        metrics::gauge!("reviewd_reviews", "status" => state).set(n);
    }
    for (state, n) in &counts.reviews {
        if !REVIEW_STATES.contains(&state.as_str()) {
            metrics::gauge!("reviewd_reviews", "status" => state.clone()).set(as_f64(*n));
        }
    }
    for state in RUNNER_STATES {
        let n = lookup(&counts.runners, state);
        metrics::gauge!("reviewd_runners", "status" => state).set(n);
    }
    // Read from the AI call log, so every replica reports the same total and a
    // restart loses nothing; it only grows, so `increase()` works as on a counter.
    for (provider, model, usd) in &counts.ai_costs {
        metrics::gauge!("reviewd_ai_cost_usd", "provider" => provider.clone(), "model" => model.clone())
            .set(*usd);
    }
    // Counters kept by the shared log rather than by this process: set, not added
    // to, so every replica reports the same values and a restart loses nothing.
    for c in &counts.ai_calls {
        let (provider, model) = (c.provider.clone(), c.model.clone());
        metrics::counter!("reviewd_ai_calls_total", "provider" => provider.clone(), "model" => model.clone(), "status" => c.status.clone())
            .absolute(c.calls);
    }
    let mut tokens = std::collections::BTreeMap::<(&str, &str), u64>::new();
    for c in &counts.ai_calls {
        *tokens.entry((&c.provider, &c.model)).or_default() += c.tokens;
    }
    for ((provider, model), n) in tokens {
        metrics::counter!("reviewd_ai_tokens_total", "provider" => provider.to_owned(), "model" => model.to_owned())
            .absolute(n);
    }
    let waited = counts
        .oldest_queued_task_at
        .map_or(0.0, |at| (now - at).as_seconds_f64().max(0.0));
    metrics::gauge!("reviewd_queue_oldest_task_age_seconds").set(waited);
    for (channel, status, n) in &counts.notifications {
        metrics::gauge!("reviewd_notifications", "channel" => channel.clone(), "status" => status.clone())
            .set(as_f64(*n));
    }
}

fn lookup(counts: &[(String, u64)], state: &str) -> f64 {
    counts
        .iter()
        .find(|(s, _)| s == state)
        .map_or(0.0, |(_, n)| as_f64(*n))
}

/// Counts as gauges take them; exact below 2^53, far beyond any count here.
fn as_f64(n: u64) -> f64 {
    n as f64
}
