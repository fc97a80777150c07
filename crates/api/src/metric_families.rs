//! Every family `GET /api/metrics` exposes, with its HELP text and unit, described
//! once when the recorder is installed: Prometheus's `promtool check metrics` wants
//! both, and an operator reads the HELP line first. The counters whose label values
//! are known start at 0, so `increase()` sees their first event.

use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};

/// Outcomes of a task attempt run by this replica's workers (`worker::crew`).
pub const TASK_OUTCOMES: [&str; 10] = [
    "completed",
    "failed",
    "retried",
    "deferred",
    "skipped",
    "taken_over",
    "answered",
    "not_recorded",
    "timed_out",
    "left_for_runner",
];

/// Describes every family and starts the known counters at 0.
pub fn describe_all() {
    describe_counter!(
        "http_requests_total",
        Unit::Count,
        "HTTP requests answered by this replica, by method, route template and status."
    );
    describe_histogram!(
        "http_request_duration_seconds",
        Unit::Seconds,
        "Time to answer an HTTP request, by method and route template."
    );
    describe_gauge!(
        "reviewd_queue_depth",
        Unit::Count,
        "Review tasks waiting or in flight on the Redis stream (shared: the same on every replica)."
    );
    describe_gauge!(
        "reviewd_queue_oldest_task_age_seconds",
        Unit::Seconds,
        "Age of the oldest review task still waiting to start (0 when none; shared)."
    );
    describe_counter!(
        "reviewd_review_tasks_total",
        Unit::Count,
        "Review task attempts run by this replica's workers, by outcome."
    );
    describe_counter!(
        "reviewd_job_runs_total",
        Unit::Count,
        "Periodic job runs made by this replica, by job name and outcome."
    );
    describe_counter!(
        "reviewd_ai_calls_total",
        Unit::Count,
        "AI calls in the AI call log, runners' included, by provider, model and status (shared)."
    );
    describe_counter!(
        "reviewd_ai_tokens_total",
        Unit::Count,
        "Tokens used by the AI calls in the AI call log, by provider and model (shared)."
    );
    describe_gauge!(
        "reviewd_ai_cost_usd",
        "USD spent on priced AI calls ever logged, by provider and model (shared; only grows)."
    );
    describe_gauge!(
        "reviewd_reviews",
        Unit::Count,
        "Reviews in the database by status (shared)."
    );
    describe_gauge!(
        "reviewd_runners",
        Unit::Count,
        "Registered runners by status; a silent one counts as offline (shared)."
    );
    describe_gauge!(
        "reviewd_notifications",
        Unit::Count,
        "Notification deliveries in the history by channel and status (shared)."
    );
    describe_counter!(
        "reviewd_budget_stops_total",
        Unit::Count,
        "Automatic reviews not queued by this replica because the project's monthly AI budget is spent."
    );
    // No project label: a series born at its first event hides that event from
    // `increase()`; the notification and the log name the project.
    metrics::counter!("reviewd_budget_stops_total").increment(0);
    for outcome in TASK_OUTCOMES {
        metrics::counter!("reviewd_review_tasks_total", "outcome" => outcome).increment(0);
    }
}
