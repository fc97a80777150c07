//! Admin endpoints for review templates and rules (listed by `/api/reviews/templates/all`
//! and `/api/reviews/rules/all`).
//!
//! Mounted beside `/api/reviews` rather than in a `/reviews` scope of their own: a
//! scope would take every `/api/reviews/...` request, and the routes of `reviews` would
//! never be reached.

mod lists;
mod rules;
mod templates;

pub(super) use lists::{list_review_rules, list_review_templates};

use rules::{create_review_rule, update_review_rule};
use templates::{create_review_template, update_review_template};
use utoipa_actix_web::service_config::ServiceConfig;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create_review_template)
        .service(update_review_template)
        .service(create_review_rule)
        .service(update_review_rule);
}
