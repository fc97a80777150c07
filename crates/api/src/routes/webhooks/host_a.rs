//! `POST /api/webhook/hostA`: GitLab webhooks, authenticated by `X-HostA-Token`
//! (or GitLab's own `X-Gitlab-Token`) against the configs' webhook secrets.

use super::payload::{self, id, iid, optional_id, optional_string, string};
use super::{WebhookReceived, header, read_body, respond, spawn_follow_up};
use crate::envelope::Data;
use crate::error::{ApiError, ErrorEnvelope};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, post, web};
use reviewd_crypto::constant_time_eq;
use reviewd_domain::model::{
    CommentEvent, FeedbackEvent, FeedbackEventKind, MergeRequestEvent, MrAction, PlatformType,
    WebhookEvent,
};
use reviewd_domain::services::DeliveryRef;
use serde_json::Value;

/// Fields GitLab lists in `changes` when only assignment changed.
const ASSIGNMENT_FIELDS: [&str; 7] = [
    "assignees",
    "reviewers",
    "assignee_id",
    "assignee_ids",
    "reviewer_ids",
    "updated_at",
    "updated_by_id",
];

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
        .ok_or_else(|| ApiError::unauthorized("missing X-HostA-Token"))?
        .to_owned();
    let configs = state
        .platform_configs
        .list(Some(PlatformType::HostA), true)
        .await?;
    let matching: Vec<_> = configs
        .iter()
        .filter(|c| {
            c.webhook_secret
                .as_ref()
                .is_some_and(|s| constant_time_eq(s.expose().as_bytes(), token.as_bytes()))
        })
        .map(|c| c.id)
        .collect();
    if matching.is_empty() {
        return Err(ApiError::unauthorized(
            "X-HostA-Token matches no hostA platform config",
        ));
    }
    let body = read_body(body).await?;
    let event = parse_event(&payload::parse(&body)?)?;
    let delivery_id = header(&req, &["x-gitlab-event-uuid", "x-hosta-delivery"]);
    let delivery = delivery_id.map(|id| DeliveryRef {
        platform: PlatformType::HostA,
        id,
    });
    let (outcome, follow_up) = state.intake.handle(&matching, delivery, event).await?;
    spawn_follow_up(&state, follow_up);
    respond(outcome)
}

/// GitLab's JSON as a domain event.
///
/// # Errors
/// 400 when the event format is not recognised or a required field is missing.
pub fn parse_event(v: &Value) -> Result<WebhookEvent, ApiError> {
    let kind = string(v, "/object_kind", "object_kind")?;
    match kind {
        "merge_request" => {
            let action = string(v, "/object_attributes/action", "object_attributes.action")?;
            let action = match action {
                "open" => MrAction::Opened,
                "reopen" => MrAction::Reopened,
                "update"
                    if v.pointer("/object_attributes/oldrev")
                        .is_some_and(|r| r.is_string()) =>
                {
                    MrAction::Updated
                }
                "update" if only_assignment_changed(v) => MrAction::AssignmentOnly,
                "update" => MrAction::Updated,
                other => MrAction::Other(other.to_owned()),
            };
            Ok(WebhookEvent::MergeRequest(MergeRequestEvent {
                platform_type: PlatformType::HostA,
                platform_project_id: id(v, "/project/id", "project.id")?,
                iid: iid(v, "/object_attributes/iid", "object_attributes.iid")?,
                action,
                head_sha: optional_string(v, "/object_attributes/last_commit/id"),
                author_id: optional_id(v, "/object_attributes/author_id"),
            }))
        }
        "note" => {
            let noteable =
                optional_string(v, "/object_attributes/noteable_type").unwrap_or_default();
            if noteable != "MergeRequest" {
                return Ok(WebhookEvent::Ignored(format!(
                    "comment on a {noteable}, not a merge request"
                )));
            }
            Ok(WebhookEvent::Comment(CommentEvent {
                platform_type: PlatformType::HostA,
                platform_project_id: id(v, "/project/id", "project.id")?,
                iid: iid(v, "/merge_request/iid", "merge_request.iid")?,
                body: string(v, "/object_attributes/note", "object_attributes.note")?.to_owned(),
                head_sha: optional_string(v, "/merge_request/last_commit/id"),
                in_thread: matches!(
                    optional_string(v, "/object_attributes/type").as_deref(),
                    Some("DiffNote" | "DiscussionNote")
                ),
                // GitLab sends edited notes too (`action: update`): an edit asks
                // for no review.
                may_command: optional_string(v, "/object_attributes/action").as_deref()
                    != Some("update"),
            }))
        }
        "emoji" => emoji_event(v),
        other => Ok(WebhookEvent::Ignored(format!(
            "`{other}` events do not trigger reviews"
        ))),
    }
}

/// An award emoji given or taken back: feedback when it is on a comment of a
/// merge request (one of reviewd's line comments, the intake decides).
fn emoji_event(v: &Value) -> Result<WebhookEvent, ApiError> {
    let awardable = optional_string(v, "/object_attributes/awardable_type").unwrap_or_default();
    if awardable != "Note" {
        return Ok(WebhookEvent::Ignored(format!(
            "emoji on a {awardable}, not on a comment"
        )));
    }
    if let Some(noteable) = optional_string(v, "/note/noteable_type")
        && noteable != "MergeRequest"
    {
        return Ok(WebhookEvent::Ignored(format!(
            "emoji on a comment on a {noteable}, not on a merge request"
        )));
    }
    // `event_type` since GitLab 16.2; the first payloads had `object_attributes.action`.
    let action = match optional_string(v, "/event_type") {
        Some(action) => action,
        None => string(v, "/object_attributes/action", "event_type")?.to_owned(),
    };
    let withdrawn = match action.as_str() {
        "award" => false,
        "revoke" => true,
        other => {
            return Ok(WebhookEvent::Ignored(format!(
                "emoji `{other}` events are not feedback"
            )));
        }
    };
    Ok(WebhookEvent::Feedback(FeedbackEvent {
        platform_type: PlatformType::HostA,
        platform_project_id: id(v, "/project/id", "project.id")?,
        iid: iid(v, "/merge_request/iid", "merge_request.iid")?,
        comment_body: string(v, "/note/note", "note.note")?.to_owned(),
        kind: FeedbackEventKind::Reaction {
            name: string(v, "/object_attributes/name", "object_attributes.name")?.to_owned(),
            username: string(v, "/user/username", "user.username")?.to_owned(),
            withdrawn,
        },
    }))
}

fn only_assignment_changed(v: &Value) -> bool {
    v.get("changes")
        .and_then(Value::as_object)
        .is_some_and(|changes| {
            !changes.is_empty()
                && changes
                    .keys()
                    .all(|k| ASSIGNMENT_FIELDS.contains(&k.as_str()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fixture(name: &str) -> Value {
        let path = format!(
            "{}/../../tests/fixtures/webhooks/hostA/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn a_real_merge_request_open_becomes_an_opened_event() {
        let WebhookEvent::MergeRequest(mr) = parse_event(&fixture("merge_request.json")).unwrap()
        else {
            panic!()
        };
        assert_eq!(mr.action, MrAction::Opened);
        assert_eq!((mr.platform_project_id.as_str(), mr.iid), ("1", 1));
        assert_eq!(
            mr.head_sha.as_deref(),
            Some("da1560886d4f094c3e6c9ef40349f7d38b5d27d7")
        );
        assert_eq!(mr.author_id.as_deref(), Some("51"));
    }

    #[test]
    fn updates_touching_only_assignment_are_marked_so() {
        let mut v = fixture("merge_request.json");
        v["object_attributes"]["action"] = json!("update");
        v["changes"] =
            json!({ "reviewers": { "previous": [], "current": [{ "id": 2 }] }, "updated_at": {} });
        let WebhookEvent::MergeRequest(mr) = parse_event(&v).unwrap() else {
            panic!()
        };
        assert_eq!(mr.action, MrAction::AssignmentOnly);

        v["changes"]["title"] = json!({ "previous": "a", "current": "b" });
        let WebhookEvent::MergeRequest(mr) = parse_event(&v).unwrap() else {
            panic!()
        };
        assert_eq!(mr.action, MrAction::Updated);

        v["object_attributes"]["oldrev"] = json!("0123");
        v["changes"] = json!({ "assignees": {} });
        let WebhookEvent::MergeRequest(mr) = parse_event(&v).unwrap() else {
            panic!()
        };
        assert_eq!(
            mr.action,
            MrAction::Updated,
            "new commits are reviewed whatever else changed"
        );
    }

    #[test]
    fn a_real_note_becomes_a_comment_event() {
        let WebhookEvent::Comment(c) = parse_event(&fixture("note_merge_request.json")).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (c.platform_project_id.as_str(), c.iid, c.body.as_str()),
            ("5", 1, "This MR needs work.")
        );
        assert_eq!(
            c.head_sha.as_deref(),
            Some("562e173be03b8ff2efb05345d12df18815438a4b")
        );
    }

    #[test]
    fn a_reply_in_a_line_comments_thread_is_in_thread() {
        let WebhookEvent::Comment(c) =
            parse_event(&fixture("note_diff_merge_request.json")).unwrap()
        else {
            panic!()
        };
        assert!(c.in_thread);
        assert_eq!(
            (c.platform_project_id.as_str(), c.iid, c.body.as_str()),
            ("5", 1, "Won't fix: the header is validated by the proxy.")
        );
        let mut v = fixture("note_diff_merge_request.json");
        v["object_attributes"]["type"] = json!("DiscussionNote");
        let WebhookEvent::Comment(c) = parse_event(&v).unwrap() else {
            panic!()
        };
        assert!(c.in_thread, "a reply in a general comment's thread");

        let WebhookEvent::Comment(c) = parse_event(&fixture("note_merge_request.json")).unwrap()
        else {
            panic!()
        };
        assert!(!c.in_thread, "a note without a type stands alone");
        v["object_attributes"]["type"] = Value::Null;
        let WebhookEvent::Comment(c) = parse_event(&v).unwrap() else {
            panic!()
        };
        assert!(!c.in_thread);
    }

    #[test]
    fn an_award_emoji_on_a_merge_request_note_is_a_reaction() {
        let WebhookEvent::Feedback(f) =
            parse_event(&fixture("emoji_note_merge_request.json")).unwrap()
        else {
            panic!()
        };
        assert_eq!(f.platform_type, PlatformType::HostA);
        assert_eq!((f.platform_project_id.as_str(), f.iid), ("5", 1));
        assert!(
            f.comment_body
                .ends_with("<!-- reviewd:comment:3f9a1c2e7b44d0a1 -->"),
            "{}",
            f.comment_body
        );
        assert_eq!(
            f.kind,
            FeedbackEventKind::Reaction {
                name: "thumbsup".into(),
                username: "root".into(),
                withdrawn: false,
            }
        );

        let mut v = fixture("emoji_note_merge_request.json");
        v["event_type"] = json!("revoke");
        v["object_attributes"]["name"] = json!("thumbsdown");
        let WebhookEvent::Feedback(f) = parse_event(&v).unwrap() else {
            panic!()
        };
        assert_eq!(
            f.kind,
            FeedbackEventKind::Reaction {
                name: "thumbsdown".into(),
                username: "root".into(),
                withdrawn: true,
            }
        );

        // The first emoji payloads (GitLab 16.2) named the action in the attributes.
        v.as_object_mut().unwrap().remove("event_type");
        v["object_attributes"]["action"] = json!("award");
        let WebhookEvent::Feedback(f) = parse_event(&v).unwrap() else {
            panic!()
        };
        assert!(matches!(
            f.kind,
            FeedbackEventKind::Reaction {
                withdrawn: false,
                ..
            }
        ));
    }

    #[test]
    fn emoji_elsewhere_than_on_a_merge_request_note_are_ignored() {
        let on = |awardable: &str, noteable: &str| {
            let mut v = fixture("emoji_note_merge_request.json");
            v["object_attributes"]["awardable_type"] = json!(awardable);
            v["note"]["noteable_type"] = json!(noteable);
            parse_event(&v).unwrap()
        };
        for (awardable, noteable) in [
            ("MergeRequest", "MergeRequest"),
            ("Issue", "MergeRequest"),
            ("Snippet", "MergeRequest"),
            ("Note", "Issue"),
            ("Note", "Snippet"),
            ("Note", "Commit"),
        ] {
            assert!(
                matches!(on(awardable, noteable), WebhookEvent::Ignored(_)),
                "{awardable} / {noteable}"
            );
        }
        let mut v = fixture("emoji_note_merge_request.json");
        v["event_type"] = json!("update");
        assert!(matches!(parse_event(&v).unwrap(), WebhookEvent::Ignored(_)));
    }

    #[test]
    fn an_emoji_event_missing_a_field_is_400() {
        for pointer in [
            "/project/id",
            "/merge_request/iid",
            "/note/note",
            "/object_attributes/name",
            "/user/username",
            "/event_type",
        ] {
            let mut v = fixture("emoji_note_merge_request.json");
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            let parent = if parent.is_empty() {
                &mut v
            } else {
                v.pointer_mut(parent).unwrap()
            };
            parent.as_object_mut().unwrap().remove(key);
            let error = parse_event(&v).unwrap_err();
            assert_eq!(error.status.as_u16(), 400, "without {pointer}");
        }
        let mut v = fixture("emoji_note_merge_request.json");
        v["merge_request"]["iid"] = json!(0);
        assert_eq!(parse_event(&v).unwrap_err().status.as_u16(), 400);
    }

    #[test]
    fn malformed_events_are_400_and_other_kinds_ignored() {
        let mut v = fixture("merge_request.json");
        v["object_attributes"]
            .as_object_mut()
            .unwrap()
            .remove("iid");
        assert_eq!(parse_event(&v).unwrap_err().status.as_u16(), 400);
        assert!(parse_event(&json!({ "project": {} })).is_err());
        assert!(matches!(
            parse_event(&json!({ "object_kind": "push" })).unwrap(),
            WebhookEvent::Ignored(_)
        ));
        let mut note = fixture("note_merge_request.json");
        note["object_attributes"]["noteable_type"] = json!("Issue");
        assert!(matches!(
            parse_event(&note).unwrap(),
            WebhookEvent::Ignored(_)
        ));
    }
}
