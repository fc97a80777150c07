//! `/api/reviews`: the review history and everything recorded about a review, review
//! tasks, manual reviews, and the template and rule lists. Each file holds its
//! handlers and the response shapes they answer with.

mod comments;
mod context;
mod files;
mod history;
mod items_page;
mod logs;
mod manual;
mod rounds;
mod schemas;
mod tasks;

use super::catalog::{list_review_rules, list_review_templates};
use crate::error::ApiError;
use comments::list_review_comments;
use files::{get_review_file_progress, list_review_files, retry_review_file};
use history::{get_review, list_reviews};
use logs::{get_review_logs, list_review_ai_logs};
use manual::{
    list_manual_merge_requests, list_manual_review_history, list_manual_review_projects,
    list_recent_manual_tasks, trigger_manual_review,
};
use reviewd_domain::ErrorCode;
use rounds::{list_review_feedbacks, list_review_rounds};
use tasks::{get_review_task, list_review_tasks};
use utoipa_actix_web::{scope, service_config::ServiceConfig};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/reviews")
            .service(list_reviews)
            .service(trigger_manual_review)
            .service(list_review_tasks)
            .service(list_manual_review_projects)
            .service(list_manual_review_history)
            .service(list_manual_merge_requests)
            .service(list_recent_manual_tasks)
            .service(get_review_task)
            .service(list_review_templates)
            .service(list_review_rules)
            .service(get_review)
            .service(list_review_comments)
            .service(list_review_files)
            .service(get_review_file_progress)
            .service(retry_review_file)
            .service(list_review_rounds)
            .service(list_review_feedbacks)
            .service(list_review_ai_logs)
            .service(get_review_logs),
    );
}

/// A bounded count parameter: non-numeric or below `min` is a 400, above `max` clamped.
fn bounded(
    name: &str,
    value: Option<&str>,
    default: u32,
    min: u32,
    max: u32,
) -> Result<u32, ApiError> {
    match value {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|n| *n >= u64::from(min))
            .map(|n| u32::try_from(n.min(u64::from(max))).unwrap_or(max))
            .ok_or_else(|| {
                ApiError::bad_request(
                    ErrorCode::InvalidQuery,
                    format!("{name} must be a whole number of at least {min}"),
                )
            }),
    }
}

fn offset(value: Option<&str>) -> Result<u64, ApiError> {
    value
        .map_or(Ok(0), |v| v.trim().parse::<u64>())
        .map_err(|_| {
            ApiError::bad_request(
                ErrorCode::InvalidQuery,
                "offset must be a whole number of at least 0",
            )
        })
}
