//! `POST /api/webhook/hostA`: GitLab webhooks, authenticated by `X-HostA-Token`
//! (or GitLab's own `X-Gitlab-Token`) against the configs' webhook secrets; the
//! payload is read by `reviewd_platform_gitlab::webhook`.

use super::payload;
use super::{WebhookReceived, header, read_body, respond, spawn_follow_up};
use crate::envelope::Data;
use crate::error::{ApiError, ErrorEnvelope};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, post, web};
use reviewd_domain::model::{PlatformType, WebhookProof};
use reviewd_domain::services::DeliveryRef;

/// Receives a GitLab webhook: merge request events queue a review of the new head,
/// comments on a merge request may be review commands (or replies judging one of
/// reviewd's comments), award emoji on its comments are feedback, other events are
/// ignored.
/// Answers at once; the review runs later from the queue.
#[utoipa::path(
    security(()),
    params(
        (
            "X-Gitlab-Token" = String,
            Header,
            description = "The webhook secret of an enabled hostA platform config \
                (`X-HostA-Token` is accepted instead)."
        ),
        (
            "X-Gitlab-Event" = Option<String>,
            Header,
            description = "GitLab's event name; informative only, the kind is read from \
                the body's `object_kind`."
        ),
        (
            "X-Gitlab-Event-UUID" = Option<String>,
            Header,
            description = "The delivery id (or `X-HostA-Delivery`): a delivery seen \
                before is not handled twice."
        ),
    ),
    request_body(
        content = Object,
        content_type = "application/json",
        description = "GitLab's webhook payload as sent (`merge_request`, `note` and \
            `emoji` events are read; `object_kind` is required)."
    ),
    responses(
        (status = 200, body = Data<WebhookReceived>),
        (
            status = 401,
            description = "The token is missing or matches no enabled hostA platform config.",
            body = ErrorEnvelope
        ),
    )
)]
#[post("/hostA")]
pub async fn receive_host_a_webhook(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let token = header(&req, &["x-hosta-token", "x-gitlab-token"])
        .ok_or_else(|| ApiError::unauthorized("missing X-HostA-Token"))?;
    // The token is checked before the body is read.
    let Ok(senders) = state
        .platform_configs
        .webhook_senders(PlatformType::Gitlab, WebhookProof::Token(token))
        .await?
    else {
        return Err(ApiError::unauthorized(
            "X-HostA-Token matches no hostA platform config",
        ));
    };
    let body = read_body(body).await?;
    payload::refuse_nul(&body)?;
    let event = reviewd_platform_gitlab::webhook::event(&body).map_err(payload::invalid)?;
    let delivery =
        header(&req, &["x-gitlab-event-uuid", "x-hosta-delivery"]).map(|id| DeliveryRef {
            platform: PlatformType::Gitlab,
            id,
        });
    let (outcome, follow_up) = state.intake.handle(&senders, delivery, event).await?;
    spawn_follow_up(&state, follow_up);
    respond(outcome)
}
