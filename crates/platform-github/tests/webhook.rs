//! GitHub's webhook payloads, as its published examples show them
//! (`tests/fixtures/webhooks/hostB/`), read into the domain's events; malformed ones
//! refused with the field named.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::webhook_payload::InvalidPayload;
use reviewd_domain::model::{
    FeedbackEventKind, InstallationChange, MrAction, PlatformType, WebhookEvent,
};
use reviewd_platform_github::webhook;
use serde_json::{Value, json};

fn parse(name: &str, v: &Value) -> Result<WebhookEvent, InvalidPayload> {
    webhook::event(name, &serde_json::to_vec(v).unwrap())
}

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/../../tests/fixtures/webhooks/hostB/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn action(name: &str) -> MrAction {
    match parse("pull_request", &fixture(name)).unwrap() {
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
        parse("pull_request", &fixture("pull_request.opened")).unwrap()
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
            parse("issue_comment", &fixture("issue_comment.created")).unwrap(),
            WebhookEvent::Ignored(_)
        ),
        "the fixture comments on an issue"
    );
    let mut on_pr = fixture("issue_comment.created");
    on_pr["issue"]["pull_request"] =
        json!({ "url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1" });
    on_pr["comment"]["body"] = json!("/review");
    let WebhookEvent::Comment(c) = parse("issue_comment", &on_pr).unwrap() else {
        panic!()
    };
    assert_eq!((c.iid, c.body.as_str()), (1, "/review"));
    let WebhookEvent::Comment(c) = parse(
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
        parse("pull_request_review_comment", &v).unwrap(),
        WebhookEvent::Ignored(_)
    ));
    v["comment"]["author_association"] = json!("COLLABORATOR");
    assert!(matches!(
        parse("pull_request_review_comment", &v).unwrap(),
        WebhookEvent::Comment(_)
    ));
}

#[test]
fn replies_in_a_thread_reach_the_domain_whoever_wrote_them() {
    let reply = fixture("pull_request_review_comment.reply");
    assert_eq!(reply["comment"]["author_association"], "NONE");
    let WebhookEvent::Comment(c) = parse("pull_request_review_comment", &reply).unwrap() else {
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
    let WebhookEvent::Comment(c) = parse("pull_request_review_comment", &edited).unwrap() else {
        panic!("an edited reply counts too")
    };
    assert!(c.in_thread);
    assert!(!c.may_command, "an edit is no command");

    let WebhookEvent::Comment(c) = parse(
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
            parse("pull_request_review_comment", &edited).unwrap(),
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
        parse("pull_request_review_comment", &outsider).unwrap(),
        WebhookEvent::Ignored(_)
    ));
    let mut deleted = fixture("pull_request_review_comment.reply");
    deleted["action"] = json!("deleted");
    assert!(matches!(
        parse("pull_request_review_comment", &deleted).unwrap(),
        WebhookEvent::Ignored(_)
    ));
}

#[test]
fn resolved_and_reopened_threads_are_feedback_on_their_first_comment() {
    let resolved = fixture("pull_request_review_thread.resolved");
    let WebhookEvent::Feedback(f) = parse("pull_request_review_thread", &resolved).unwrap() else {
        panic!()
    };
    assert_eq!(
        (f.platform_type, f.platform_project_id.as_str(), f.iid),
        (PlatformType::Github, "186853002", 2)
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
    let WebhookEvent::Feedback(f) = parse(
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
    let WebhookEvent::Feedback(f) = parse("pull_request_review_thread", &replied).unwrap() else {
        panic!()
    };
    assert_eq!(f.comment_body, resolved["thread"]["comments"][0]["body"]);

    let mut empty = resolved.clone();
    empty["thread"]["comments"] = json!([]);
    let error = parse("pull_request_review_thread", &empty).unwrap_err();
    assert!(error.0.contains("thread.comments[0].body"), "{error}");
}

#[test]
fn malformed_payloads_are_refused_naming_the_field() {
    let mut v = fixture("pull_request.opened");
    v["pull_request"].as_object_mut().unwrap().remove("number");
    let error = parse("pull_request", &v).unwrap_err();
    assert!(error.0.contains("pull_request.number"), "{error}");
    assert!(parse("pull_request", &json!({ "action": "opened" })).is_err());
    assert!(matches!(
        parse("star", &json!({})).unwrap(),
        WebhookEvent::Ignored(_)
    ));
}

#[test]
fn installation_events_say_which_repositories_come_and_go() {
    let change_of = |event: &str, name: &str| {
        let WebhookEvent::Installation(e) = parse(event, &fixture(name)).unwrap() else {
            panic!("{name} is an installation event")
        };
        assert_eq!(e.installation_id, 57_460_125);
        e.change
    };
    assert_eq!(
        change_of("installation", "installation.created"),
        InstallationChange::Available {
            repository_ids: vec!["718291034".into(), "718291577".into()]
        }
    );
    assert!(matches!(
        change_of("installation", "installation.deleted"),
        InstallationChange::Unavailable { .. }
    ));
    assert_eq!(
        change_of("installation", "installation.suspend"),
        InstallationChange::Unavailable {
            repository_ids: vec![]
        },
        "a suspension names no repository"
    );
    assert!(matches!(
        change_of("installation_repositories", "installation_repositories.added"),
        InstallationChange::Available { repository_ids } if !repository_ids.is_empty()
    ));
    assert_eq!(
        change_of(
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
        parse("installation", &other).unwrap(),
        WebhookEvent::Ignored(_)
    ));
    let mut broken = fixture("installation.created");
    broken["installation"] = json!({});
    assert!(parse("installation", &broken).is_err());
}
