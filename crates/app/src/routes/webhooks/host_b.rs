//! `POST /api/webhook/hostB`: GitHub webhooks, authenticated by the HMAC-SHA256
//! signature of the raw body (`X-Hub-Signature-256`) under a config's webhook secret.

use super::payload::{self, id, iid, optional_id, optional_string, string};
use super::{WebhookReceived, header, read_body, respond, spawn_follow_up};
use crate::envelope::Data;
use crate::error::{ApiError, ErrorEnvelope};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, post, web};
use reviewd_crypto::{constant_time_eq, hmac_sha256_hex};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::{
    CommentEvent, MergeRequestEvent, MrAction, PlatformType, WebhookEvent,
};
use reviewd_domain::services::DeliveryRef;
use serde_json::Value;

/// Receives a GitHub webhook: pull request events queue a review of the new head,
/// new comments of collaborators on a pull request may be review commands, other
/// events (`ping` included) are acknowledged and ignored. Answers at once; the review
/// runs later from the queue.
#[utoipa::path(
    security(()),
    params(
        (
            "X-GitHub-Event" = String,
            Header,
            pattern = "^[!-~]+$",
            description = "The event name (`pull_request`, `issue_comment`, \
                `pull_request_review_comment`, `ping`...); `X-HostB-Event` is accepted \
                instead. Missing is a 400."
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
    let event_name = header(&req, &["x-hostb-event", "x-github-event"])
        .ok_or_else(|| {
            ApiError::bad_request(
                ErrorCode::MissingEventHeader,
                "missing X-HostB-Event header",
            )
        })?
        .to_owned();
    // An unsigned delivery is refused before anything is looked up for it.
    let signature = header(&req, &["x-hub-signature-256"])
        .and_then(|s| s.strip_prefix("sha256="))
        .ok_or_else(|| ApiError::unauthorized("missing X-Hub-Signature-256"))?
        .to_ascii_lowercase();
    let configs = state
        .platform_configs
        .list(Some(PlatformType::HostB), true)
        .await?;
    if configs.is_empty() {
        return Err(ApiError::not_found("no hostB platform config is set up"));
    }
    let body = read_body(body).await?;
    let matching: Vec<_> = configs
        .iter()
        .filter(|c| {
            c.webhook_secret.as_ref().is_some_and(|secret| {
                constant_time_eq(
                    hmac_sha256_hex(secret.expose().as_bytes(), &body).as_bytes(),
                    signature.as_bytes(),
                )
            })
        })
        .map(|c| c.id)
        .collect();
    if matching.is_empty() {
        return Err(ApiError::unauthorized(
            "the signature matches no hostB platform config",
        ));
    }
    let event = parse_event(&event_name, &payload::parse(&body)?)?;
    let delivery = header(&req, &["x-github-delivery", "x-hostb-delivery"]).map(|id| DeliveryRef {
        platform: PlatformType::HostB,
        id,
    });
    let (outcome, follow_up) = state.intake.handle(&matching, delivery, event).await?;
    spawn_follow_up(&state, follow_up);
    respond(outcome)
}

/// On a public repository anyone may comment: only people with a role in the
/// repository can spend the AI budget with a review command.
const ALLOWED_ASSOCIATIONS: [&str; 3] = ["OWNER", "MEMBER", "COLLABORATOR"];
const NOT_A_COLLABORATOR: &str =
    "only owners, members and collaborators can request reviews by comment";

fn from_collaborator(v: &Value) -> bool {
    v.pointer("/comment/author_association")
        .and_then(Value::as_str)
        .is_some_and(|a| ALLOWED_ASSOCIATIONS.contains(&a))
}

/// GitHub's JSON as a domain event.
///
/// # Errors
/// 400 when a handled event lacks a required field.
pub fn parse_event(event: &str, v: &Value) -> Result<WebhookEvent, ApiError> {
    match event {
        "pull_request" => {
            let action = match string(v, "/action", "action")? {
                "opened" => MrAction::Opened,
                "reopened" => MrAction::Reopened,
                "synchronize" => MrAction::Updated,
                "assigned" | "unassigned" | "review_requested" | "review_request_removed" => {
                    MrAction::AssignmentOnly
                }
                other => MrAction::Other(other.to_owned()),
            };
            Ok(WebhookEvent::MergeRequest(MergeRequestEvent {
                platform_type: PlatformType::HostB,
                platform_project_id: id(v, "/repository/id", "repository.id")?,
                iid: iid(v, "/pull_request/number", "pull_request.number")?,
                action,
                head_sha: optional_string(v, "/pull_request/head/sha"),
                author_id: optional_id(v, "/pull_request/user/login"),
            }))
        }
        "issue_comment" => {
            if string(v, "/action", "action")? != "created" {
                return Ok(WebhookEvent::Ignored("only new comments are read".into()));
            }
            if !from_collaborator(v) {
                return Ok(WebhookEvent::Ignored(NOT_A_COLLABORATOR.into()));
            }
            if v.pointer("/issue/pull_request").is_none() {
                return Ok(WebhookEvent::Ignored(
                    "comment on an issue, not a pull request".into(),
                ));
            }
            Ok(WebhookEvent::Comment(CommentEvent {
                platform_type: PlatformType::HostB,
                platform_project_id: id(v, "/repository/id", "repository.id")?,
                iid: iid(v, "/issue/number", "issue.number")?,
                body: string(v, "/comment/body", "comment.body")?.to_owned(),
                head_sha: None,
            }))
        }
        "pull_request_review_comment" => {
            if string(v, "/action", "action")? != "created" {
                return Ok(WebhookEvent::Ignored("only new comments are read".into()));
            }
            if !from_collaborator(v) {
                return Ok(WebhookEvent::Ignored(NOT_A_COLLABORATOR.into()));
            }
            Ok(WebhookEvent::Comment(CommentEvent {
                platform_type: PlatformType::HostB,
                platform_project_id: id(v, "/repository/id", "repository.id")?,
                iid: iid(v, "/pull_request/number", "pull_request.number")?,
                body: string(v, "/comment/body", "comment.body")?.to_owned(),
                head_sha: optional_string(v, "/pull_request/head/sha"),
            }))
        }
        "ping" => Ok(WebhookEvent::Ignored("pong".into())),
        other => Ok(WebhookEvent::Ignored(format!(
            "`{other}` events do not trigger reviews"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fixture(name: &str) -> Value {
        let path = format!(
            "{}/../../tests/fixtures/webhooks/hostB/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn action(name: &str) -> MrAction {
        match parse_event("pull_request", &fixture(name)).unwrap() {
            WebhookEvent::MergeRequest(mr) => mr.action,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn real_pull_request_actions() {
        assert_eq!(action("pull_request.opened"), MrAction::Opened);
        assert_eq!(action("pull_request.synchronize"), MrAction::Updated);
        assert_eq!(action("pull_request.reopened"), MrAction::Reopened);
        assert_eq!(action("pull_request.assigned"), MrAction::AssignmentOnly);
        assert_eq!(
            action("pull_request.closed"),
            MrAction::Other("closed".into())
        );
        let WebhookEvent::MergeRequest(mr) =
            parse_event("pull_request", &fixture("pull_request.opened")).unwrap()
        else {
            panic!()
        };
        assert_eq!((mr.platform_project_id.as_str(), mr.iid), ("186853002", 2));
        assert_eq!(
            mr.head_sha.as_deref(),
            Some("ec26c3e57ca3a959ca5aad62de7213c562f8c821")
        );
    }

    #[test]
    fn comments_on_pull_requests_only() {
        assert!(
            matches!(
                parse_event("issue_comment", &fixture("issue_comment.created")).unwrap(),
                WebhookEvent::Ignored(_)
            ),
            "the fixture comments on an issue"
        );
        let mut on_pr = fixture("issue_comment.created");
        on_pr["issue"]["pull_request"] =
            json!({ "url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1" });
        on_pr["comment"]["body"] = json!("/review");
        let WebhookEvent::Comment(c) = parse_event("issue_comment", &on_pr).unwrap() else {
            panic!()
        };
        assert_eq!((c.iid, c.body.as_str()), (1, "/review"));
        let WebhookEvent::Comment(c) = parse_event(
            "pull_request_review_comment",
            &fixture("pull_request_review_comment.created"),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(c.iid, 2);
    }

    #[test]
    fn comments_of_outsiders_are_not_commands() {
        let mut v = fixture("pull_request_review_comment.created");
        v["comment"]["author_association"] = json!("NONE");
        assert!(matches!(
            parse_event("pull_request_review_comment", &v).unwrap(),
            WebhookEvent::Ignored(_)
        ));
        v["comment"]["author_association"] = json!("COLLABORATOR");
        assert!(matches!(
            parse_event("pull_request_review_comment", &v).unwrap(),
            WebhookEvent::Comment(_)
        ));
    }

    #[test]
    fn malformed_payloads_are_400() {
        let mut v = fixture("pull_request.opened");
        v["pull_request"].as_object_mut().unwrap().remove("number");
        assert_eq!(
            parse_event("pull_request", &v).unwrap_err().status.as_u16(),
            400
        );
        assert!(parse_event("pull_request", &json!({ "action": "opened" })).is_err());
        assert!(matches!(
            parse_event("star", &json!({})).unwrap(),
            WebhookEvent::Ignored(_)
        ));
    }
}
