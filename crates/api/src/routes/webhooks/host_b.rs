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
    CommentEvent, FeedbackEvent, FeedbackEventKind, InstallationChange, InstallationEvent,
    MergeRequestEvent, MrAction, PlatformType, WebhookEvent,
};
use reviewd_domain::services::DeliveryRef;
use serde_json::Value;

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

/// A review comment answering another (GitHub names the thread's first comment).
fn is_reply(v: &Value) -> bool {
    v.pointer("/comment/in_reply_to_id")
        .is_some_and(Value::is_number)
}

/// `pull_request_review_thread`: a thread resolved or reopened, judged by the
/// thread's first comment, which is reviewd's when it carries its marker.
fn thread_resolution(v: &Value) -> Result<WebhookEvent, ApiError> {
    let resolved = match string(v, "/action", "action")? {
        "resolved" => true,
        "unresolved" => false,
        other => {
            return Ok(WebhookEvent::Ignored(format!(
                "review thread `{other}` events are not feedback"
            )));
        }
    };
    let comments = v
        .pointer("/thread/comments")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let first = comments
        .iter()
        .find(|c| !c["in_reply_to_id"].is_number())
        .or_else(|| comments.first());
    let comment_body = first.and_then(|c| c["body"].as_str()).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::InvalidPayload,
            "missing or malformed field `thread.comments[0].body`",
        )
    })?;
    Ok(WebhookEvent::Feedback(FeedbackEvent {
        platform_type: PlatformType::HostB,
        platform_project_id: id(v, "/repository/id", "repository.id")?,
        iid: iid(v, "/pull_request/number", "pull_request.number")?,
        comment_body: comment_body.to_owned(),
        kind: FeedbackEventKind::Resolution {
            username: optional_string(v, "/sender/login"),
            resolved,
        },
    }))
}

/// The repository ids a GitHub App payload lists under `key` (absent: none).
fn repository_ids(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|repos| {
            repos
                .iter()
                .filter_map(|r| r["id"].as_u64())
                .map(|id| id.to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// `installation` and `installation_repositories`: a GitHub App installed,
/// removed, suspended, or its repositories changed.
fn installation(event: &str, v: &Value) -> Result<WebhookEvent, ApiError> {
    let installation_id = v
        .pointer("/installation/id")
        .and_then(Value::as_i64)
        .ok_or_else(|| {
            ApiError::bad_request(
                ErrorCode::InvalidPayload,
                "missing or malformed field `installation.id`",
            )
        })?;
    let action = string(v, "/action", "action")?;
    let change = match (event, action) {
        ("installation", "created" | "unsuspend" | "new_permissions_accepted") => {
            InstallationChange::Available {
                repository_ids: repository_ids(v, "repositories"),
            }
        }
        ("installation", "deleted" | "suspend") => InstallationChange::Unavailable {
            repository_ids: repository_ids(v, "repositories"),
        },
        ("installation_repositories", "added") => InstallationChange::Available {
            repository_ids: repository_ids(v, "repositories_added"),
        },
        ("installation_repositories", "removed") => InstallationChange::Unavailable {
            repository_ids: repository_ids(v, "repositories_removed"),
        },
        (_, other) => {
            return Ok(WebhookEvent::Ignored(format!(
                "`{event}` `{other}` changes no project"
            )));
        }
    };
    Ok(WebhookEvent::Installation(InstallationEvent {
        installation_id,
        app_id: v.pointer("/installation/app_id").and_then(Value::as_i64),
        change,
    }))
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
                in_thread: false,
                may_command: true,
            }))
        }
        "pull_request_review_comment" => {
            let in_thread = is_reply(v);
            let action = string(v, "/action", "action")?;
            match action {
                "created" => {}
                // An edited reply may change its verdict on the comment it answers.
                "edited" if in_thread => {}
                _ => {
                    return Ok(WebhookEvent::Ignored(
                        "only new comments and edited replies are read".into(),
                    ));
                }
            }
            // A reply may judge one of reviewd's comments whoever wrote it, so it
            // reaches the domain; `may_command` keeps an outsider's "/review" (or
            // an edit) from starting a review.
            let may_command = action == "created" && from_collaborator(v);
            if !in_thread && !may_command {
                return Ok(WebhookEvent::Ignored(NOT_A_COLLABORATOR.into()));
            }
            Ok(WebhookEvent::Comment(CommentEvent {
                platform_type: PlatformType::HostB,
                platform_project_id: id(v, "/repository/id", "repository.id")?,
                iid: iid(v, "/pull_request/number", "pull_request.number")?,
                body: string(v, "/comment/body", "comment.body")?.to_owned(),
                head_sha: optional_string(v, "/pull_request/head/sha"),
                in_thread,
                may_command,
            }))
        }
        "pull_request_review_thread" => thread_resolution(v),
        "installation" | "installation_repositories" => installation(event, v),
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
    fn replies_in_a_thread_reach_the_domain_whoever_wrote_them() {
        let reply = fixture("pull_request_review_comment.reply");
        assert_eq!(reply["comment"]["author_association"], "NONE");
        let WebhookEvent::Comment(c) = parse_event("pull_request_review_comment", &reply).unwrap()
        else {
            panic!("a reply of someone without a role is still feedback")
        };
        assert!(c.in_thread);
        assert!(!c.may_command, "an outsider's reply is no command");
        assert_eq!(
            (c.platform_project_id.as_str(), c.iid, c.body.as_str()),
            (
                "186853002",
                2,
                "Won't fix: the file is a few bytes at most."
            )
        );

        let mut edited = reply.clone();
        edited["action"] = json!("edited");
        edited["changes"] = json!({ "body": { "from": "Won't fix." } });
        let WebhookEvent::Comment(c) = parse_event("pull_request_review_comment", &edited).unwrap()
        else {
            panic!("an edited reply counts too")
        };
        assert!(c.in_thread);
        assert!(!c.may_command, "an edit is no command");

        let WebhookEvent::Comment(c) = parse_event(
            "pull_request_review_comment",
            &fixture("pull_request_review_comment.created"),
        )
        .unwrap() else {
            panic!()
        };
        assert!(!c.in_thread, "a thread's first comment answers nothing");
        assert!(
            c.may_command,
            "a collaborator's new comment may be a command"
        );
    }

    #[test]
    fn first_comments_of_outsiders_and_edits_stay_ignored() {
        let edited = fixture("pull_request_review_comment.edited");
        assert!(edited["comment"]["in_reply_to_id"].is_null());
        assert!(
            matches!(
                parse_event("pull_request_review_comment", &edited).unwrap(),
                WebhookEvent::Ignored(_)
            ),
            "an edited first comment is no new command"
        );
        let mut outsider = fixture("pull_request_review_comment.reply");
        outsider["comment"]
            .as_object_mut()
            .unwrap()
            .remove("in_reply_to_id");
        assert!(matches!(
            parse_event("pull_request_review_comment", &outsider).unwrap(),
            WebhookEvent::Ignored(_)
        ));
        let mut deleted = fixture("pull_request_review_comment.reply");
        deleted["action"] = json!("deleted");
        assert!(matches!(
            parse_event("pull_request_review_comment", &deleted).unwrap(),
            WebhookEvent::Ignored(_)
        ));
    }

    #[test]
    fn resolved_and_reopened_threads_are_feedback_on_their_first_comment() {
        let resolved = fixture("pull_request_review_thread.resolved");
        let WebhookEvent::Feedback(f) =
            parse_event("pull_request_review_thread", &resolved).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (f.platform_type, f.platform_project_id.as_str(), f.iid),
            (PlatformType::HostB, "186853002", 2)
        );
        assert_eq!(
            reviewd_domain::review::markers::comment_fingerprint(&f.comment_body),
            Some("9c1f2e3a4b5d6e7f"),
            "the thread's first comment is reviewd's"
        );
        assert_eq!(
            f.kind,
            FeedbackEventKind::Resolution {
                username: Some("Codertocat".into()),
                resolved: true
            }
        );
        let WebhookEvent::Feedback(f) = parse_event(
            "pull_request_review_thread",
            &fixture("pull_request_review_thread.unresolved"),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            f.kind,
            FeedbackEventKind::Resolution {
                username: Some("Codertocat".into()),
                resolved: false
            }
        );

        // The thread's first comment is the one judged, wherever GitHub lists it.
        let mut replied = resolved.clone();
        let mut reply = replied["thread"]["comments"][0].clone();
        reply["id"] = json!(284_312_631);
        reply["in_reply_to_id"] = json!(284_312_630);
        reply["body"] = json!("done");
        replied["thread"]["comments"]
            .as_array_mut()
            .unwrap()
            .insert(0, reply);
        let WebhookEvent::Feedback(f) =
            parse_event("pull_request_review_thread", &replied).unwrap()
        else {
            panic!()
        };
        assert_eq!(f.comment_body, resolved["thread"]["comments"][0]["body"]);

        let mut empty = resolved.clone();
        empty["thread"]["comments"] = json!([]);
        assert_eq!(
            parse_event("pull_request_review_thread", &empty)
                .unwrap_err()
                .status
                .as_u16(),
            400
        );
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

    #[test]
    fn installation_events_say_which_repositories_come_and_go() {
        let parse = |event: &str, name: &str| {
            let WebhookEvent::Installation(e) = parse_event(event, &fixture(name)).unwrap() else {
                panic!("{name} is an installation event")
            };
            assert_eq!(e.installation_id, 57_460_125);
            e.change
        };
        assert_eq!(
            parse("installation", "installation.created"),
            InstallationChange::Available {
                repository_ids: vec!["718291034".into(), "718291577".into()]
            }
        );
        assert!(matches!(
            parse("installation", "installation.deleted"),
            InstallationChange::Unavailable { .. }
        ));
        assert_eq!(
            parse("installation", "installation.suspend"),
            InstallationChange::Unavailable {
                repository_ids: vec![]
            },
            "a suspension names no repository"
        );
        assert!(matches!(
            parse("installation_repositories", "installation_repositories.added"),
            InstallationChange::Available { repository_ids } if !repository_ids.is_empty()
        ));
        assert_eq!(
            parse(
                "installation_repositories",
                "installation_repositories.removed"
            ),
            InstallationChange::Unavailable {
                repository_ids: vec!["718291577".into()]
            }
        );
        let mut other = fixture("installation.created");
        other["action"] = json!("new_permissions_requested");
        assert!(matches!(
            parse_event("installation", &other).unwrap(),
            WebhookEvent::Ignored(_)
        ));
        let mut broken = fixture("installation.created");
        broken["installation"] = json!({});
        assert!(parse_event("installation", &broken).is_err());
    }
}
