//! The webhook receivers. Each checks the token or signature before parsing the
//! body, turns the platform's JSON into a domain event, and hands it to the intake;
//! the review itself runs later from the queue, so they answer fast.

mod github;
mod gitlab;
mod payload;

use crate::envelope;
use crate::error::ApiError;
use crate::extract::WEBHOOK_BODY_LIMIT;
use crate::field_schemas::string_enum;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::services::{AssignmentPlan, FollowUp, IntakeOutcome};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/webhook")
            .service(gitlab::receive_host_a_webhook)
            .service(github::receive_host_b_webhook),
    );
}

/// Reads the raw body (signatures are over the exact bytes), with a JSON 413 past the limit.
async fn read_body(payload: web::Payload) -> Result<web::Bytes, ApiError> {
    crate::extract::read_limited(payload, WEBHOOK_BODY_LIMIT, "webhook body").await
}

fn header<'a>(req: &'a HttpRequest, names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|n| req.headers().get(*n))
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// `queued`, `duplicate` (a task of this head is already queued) or `ignored`.
fn webhook_outcome_schema() -> utoipa::openapi::Object {
    string_enum(["queued", "duplicate", "ignored"])
}

/// A delivery handled: a review queued, one already queued for this head, a
/// comment's answer queued, or the event deliberately ignored (`message` says why).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookReceived {
    message: String,
    /// Always `true`.
    received: bool,
    #[schema(schema_with = webhook_outcome_schema)]
    status: &'static str,
    /// The review task queued (or already queued); `null` when ignored.
    task_id: Option<Uuid>,
}

/// The contract's answer: 200 `{received: true, message}` for everything handled
/// (queued or deliberately ignored), 500 when the task could not be queued.
fn respond(outcome: IntakeOutcome) -> Result<HttpResponse, ApiError> {
    let (message, task_id, status) = match outcome {
        IntakeOutcome::Queued { task_id } => ("review queued".to_owned(), Some(task_id), "queued"),
        IntakeOutcome::Answering { task_id } => (
            "answer queued: the comment is answered if it speaks to reviewd".to_owned(),
            Some(task_id),
            "queued",
        ),
        IntakeOutcome::AlreadyQueued { task_id } => (
            "a review of this head is already queued".to_owned(),
            Some(task_id),
            "duplicate",
        ),
        IntakeOutcome::Ignored(reason) => (reason, None, "ignored"),
        IntakeOutcome::QueueFailed { task_id } => {
            tracing::error!(task.id = %task_id, "webhook.queue_failed");
            return Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::QueueUnavailable,
                "the review task could not be queued; retry the delivery",
            ));
        }
    };
    // A queued task has its own `task.queued` line and the answer its `http.response`:
    // a third line for every webhook of a busy platform would say nothing new.
    if status == "queued" {
        tracing::debug!(webhook.outcome = status, webhook.message = %message, "webhook.received");
    } else {
        tracing::info!(webhook.outcome = status, webhook.message = %message, "webhook.received");
    }
    Ok(envelope::ok(WebhookReceived {
        message,
        received: true,
        status,
        task_id,
    }))
}

/// Does what the intake left for after the answer, in the background: a slow
/// platform must not delay the webhook's answer, and a failure costs only the
/// assignment or the message.
fn spawn_follow_up(state: &web::Data<AppState>, follow_up: FollowUp) {
    if let Some(stop) = follow_up.budget_stop {
        metrics::counter!("reviewd_budget_stops_total").increment(1);
        let budgets = state.budgets.clone();
        actix_web::rt::spawn(async move { budgets.announce(&stop).await });
    }
    spawn_assignment(state, follow_up.assignment);
    if let Some(task_id) = follow_up.gate_pending {
        let engine = state.engine.clone();
        actix_web::rt::spawn(async move { engine.gate_queued(task_id).await });
    }
    if let Some((config_ids, event)) = follow_up.installation {
        let installations = state.installations.clone();
        actix_web::rt::spawn(async move {
            if let Err(e) = installations.apply(&config_ids, &event).await {
                tracing::warn!(installation.id = event.installation_id, error = %e, "installation.apply_failed");
            }
        });
    }
    if let Some((project_id, iid)) = follow_up.read_feedback {
        let feedback = state.feedback.clone();
        actix_web::rt::spawn(async move {
            if let Err(e) = feedback.collect(project_id, iid).await {
                tracing::warn!(project.id = %project_id, mr.iid = iid, error = %e, "feedback.collect_failed");
            }
        });
    }
}

/// Applies a hostA assignment.
fn spawn_assignment(state: &web::Data<AppState>, plan: Option<AssignmentPlan>) {
    let Some(plan) = plan else { return };
    let state = state.clone();
    actix_web::rt::spawn(async move {
        let result = match state.projects.with_platform(plan.project_id).await {
            Ok((project, platform)) => platform
                .assign(
                    &project.platform_ref(),
                    plan.iid,
                    &plan.assignee_ids,
                    &plan.reviewer_ids,
                )
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        match result {
            Ok(()) => {
                tracing::info!(project.id = %plan.project_id, mr.iid = plan.iid, "mr.assigned")
            }
            Err(error) => {
                tracing::warn!(project.id = %plan.project_id, mr.iid = plan.iid, %error, "mr.assign_failed")
            }
        }
    });
}
