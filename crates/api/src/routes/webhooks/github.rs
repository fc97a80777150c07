//! `POST /api/webhook/hostB`: GitHub webhooks, authenticated by the HMAC-SHA256
//! signature of the raw body (`X-Hub-Signature-256`) under a config's webhook secret;
//! the payload is read by `reviewd_platform_github::webhook`.

use super::payload;
use super::{WebhookReceived, header, read_body, respond, spawn_follow_up};
use crate::envelope::Data;
use crate::error::{ApiError, ErrorEnvelope};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, post, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::{PlatformType, WebhookProof};
use reviewd_domain::services::{DeliveryRef, UnknownSender};

/// Receives a GitHub webhook: pull request events queue a review of the new head,
/// new comments of collaborators on a pull request may be review commands, replies
/// in a line comment's thread and resolved or reopened threads may be feedback on
/// reviewd's comments, other events (`ping` included) are acknowledged and ignored. Answers at once; the review
/// runs later from the queue.
#[utoipa::path(
    security(()),
    params(
        (
            "X-GitHub-Event" = String,
            Header,
            pattern = "^[!-~]+$",
            description = "The event name (`pull_request`, `issue_comment`, \
                `pull_request_review_comment`, `pull_request_review_thread`, `ping`...); \
                `X-HostB-Event` is accepted instead. Missing is a 400."
        ),
        (
            "X-Hub-Signature-256" = String,
            Header,
            pattern = "^sha256=[0-9a-fA-F]{64}$",
            description = "`sha256=` and the HMAC-SHA256 (hex) of the raw body under the \
                webhook secret of an enabled hostB platform config."
        ),
        (
            "X-GitHub-Delivery" = Option<String>,
            Header,
            description = "The delivery id (or `X-HostB-Delivery`): a delivery seen \
                before is not handled twice."
        ),
    ),
    request_body(
        content = Object,
        content_type = "application/json",
        description = "GitHub's webhook payload as sent; the signature is checked over \
            these exact bytes."
    ),
    responses(
        (status = 200, body = Data<WebhookReceived>),
        (
            status = 401,
            description = "The signature is missing or matches no enabled hostB platform config.",
            body = ErrorEnvelope
        ),
    )
)]
#[post("/hostB")]
pub async fn receive_host_b_webhook(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let event_name = header(&req, &["x-hostb-event", "x-github-event"]).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::MissingEventHeader,
            "missing X-HostB-Event header",
        )
    })?;
    // An unsigned delivery is refused before its body is read.
    let signature = header(&req, &["x-hub-signature-256"])
        .and_then(|s| s.strip_prefix("sha256="))
        .ok_or_else(|| ApiError::unauthorized("missing X-Hub-Signature-256"))?;
    let body = read_body(body).await?;
    let proof = WebhookProof::Signature {
        hex: signature,
        body: &body,
    };
    let senders = match state
        .platform_configs
        .webhook_senders(PlatformType::Github, proof)
        .await?
    {
        Ok(senders) => senders,
        Err(UnknownSender::NoConfig) => {
            return Err(ApiError::not_found("no hostB platform config is set up"));
        }
        Err(UnknownSender::NoMatch) => {
            return Err(ApiError::unauthorized(
                "the signature matches no hostB platform config",
            ));
        }
    };
    payload::refuse_nul(&body)?;
    let event =
        reviewd_platform_github::webhook::event(event_name, &body).map_err(payload::invalid)?;
    let delivery = header(&req, &["x-github-delivery", "x-hostb-delivery"]).map(|id| DeliveryRef {
        platform: PlatformType::Github,
        id,
    });
    let (outcome, follow_up) = state.intake.handle(&senders, delivery, event).await?;
    spawn_follow_up(&state, follow_up);
    respond(outcome)
}
