//! GitLab's webhook payloads, as its documentation shows them (`tests/fixtures/webhooks/hostA/`),
//! read into the domain's events; malformed ones refused with the field named.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::webhook_payload::InvalidPayload;
use reviewd_domain::model::{FeedbackEventKind, MrAction, PlatformType, WebhookEvent};
use reviewd_platform_gitlab::webhook;
use serde_json::{Value, json};

fn parse(v: &Value) -> Result<WebhookEvent, InvalidPayload> {
    webhook::event(&serde_json::to_vec(v).unwrap())
}

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/../../tests/fixtures/webhooks/hostA/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_real_merge_request_open_becomes_an_opened_event() {
    let WebhookEvent::MergeRequest(mr) = parse(&fixture("merge_request.json")).unwrap() else {
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
    let WebhookEvent::MergeRequest(mr) = parse(&v).unwrap() else {
        panic!()
    };
    assert_eq!(mr.action, MrAction::AssignmentOnly);

    v["changes"]["title"] = json!({ "previous": "a", "current": "b" });
    let WebhookEvent::MergeRequest(mr) = parse(&v).unwrap() else {
        panic!()
    };
    assert_eq!(mr.action, MrAction::Updated);

    v["object_attributes"]["oldrev"] = json!("0123");
    v["changes"] = json!({ "assignees": {} });
    let WebhookEvent::MergeRequest(mr) = parse(&v).unwrap() else {
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
    let WebhookEvent::Comment(c) = parse(&fixture("note_merge_request.json")).unwrap() else {
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
    let WebhookEvent::Comment(c) = parse(&fixture("note_diff_merge_request.json")).unwrap() else {
        panic!()
    };
    assert!(c.in_thread);
    assert_eq!(
        (c.platform_project_id.as_str(), c.iid, c.body.as_str()),
        ("5", 1, "Won't fix: the header is validated by the proxy.")
    );
    let mut v = fixture("note_diff_merge_request.json");
    v["object_attributes"]["type"] = json!("DiscussionNote");
    let WebhookEvent::Comment(c) = parse(&v).unwrap() else {
        panic!()
    };
    assert!(c.in_thread, "a reply in a general comment's thread");

    let WebhookEvent::Comment(c) = parse(&fixture("note_merge_request.json")).unwrap() else {
        panic!()
    };
    assert!(!c.in_thread, "a note without a type stands alone");
    v["object_attributes"]["type"] = Value::Null;
    let WebhookEvent::Comment(c) = parse(&v).unwrap() else {
        panic!()
    };
    assert!(!c.in_thread);
}

#[test]
fn an_award_emoji_on_a_merge_request_note_is_a_reaction() {
    let WebhookEvent::Feedback(f) = parse(&fixture("emoji_note_merge_request.json")).unwrap()
    else {
        panic!()
    };
    assert_eq!(f.platform_type, PlatformType::Gitlab);
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
    let WebhookEvent::Feedback(f) = parse(&v).unwrap() else {
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
    let WebhookEvent::Feedback(f) = parse(&v).unwrap() else {
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
        parse(&v).unwrap()
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
    assert!(matches!(parse(&v).unwrap(), WebhookEvent::Ignored(_)));
}

#[test]
fn an_emoji_event_missing_a_field_is_refused_naming_it() {
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
        let error = parse(&v).unwrap_err();
        let field = pointer[1..].replace('/', ".");
        assert!(error.0.contains(&field), "without {pointer}: {error}");
    }
    let mut v = fixture("emoji_note_merge_request.json");
    v["merge_request"]["iid"] = json!(0);
    assert!(parse(&v).unwrap_err().0.contains("merge_request.iid"));
}

#[test]
fn malformed_events_are_refused_naming_the_field_and_other_kinds_ignored() {
    let mut v = fixture("merge_request.json");
    v["object_attributes"]
        .as_object_mut()
        .unwrap()
        .remove("iid");
    let error = parse(&v).unwrap_err();
    assert!(error.0.contains("object_attributes.iid"), "{error}");
    let error = parse(&json!({ "project": {} })).unwrap_err();
    assert!(error.0.contains("object_kind"), "{error}");
    assert!(matches!(
        parse(&json!({ "object_kind": "push" })).unwrap(),
        WebhookEvent::Ignored(_)
    ));
    let mut note = fixture("note_merge_request.json");
    note["object_attributes"]["noteable_type"] = json!("Issue");
    assert!(matches!(parse(&note).unwrap(), WebhookEvent::Ignored(_)));
}
