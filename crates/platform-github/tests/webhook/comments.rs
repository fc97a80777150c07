//! Comments on pull requests: whose are commands, and replies in threads.

use super::*;

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
fn comments_of_outsiders_reach_the_domain_as_no_commands() {
    let mut v = fixture("pull_request_review_comment.created");
    let mut on_pr = fixture("issue_comment.created");
    on_pr["issue"]["pull_request"] = json!({ "url": "https://api.github.com/repos/o/r/pulls/1" });
    on_pr["comment"]["body"] = json!("/reviewd pause");
    let roles = [
        ("NONE", false),
        ("CONTRIBUTOR", false),
        ("FIRST_TIME_CONTRIBUTOR", false),
        ("OWNER", true),
        ("MEMBER", true),
        ("COLLABORATOR", true),
    ];
    for (association, may_command) in roles {
        v["comment"]["author_association"] = json!(association);
        on_pr["comment"]["author_association"] = json!(association);
        for (event, body) in [
            ("pull_request_review_comment", &v),
            ("issue_comment", &on_pr),
        ] {
            // Dropped, an outsider could not be refused.
            let WebhookEvent::Comment(c) = parse(event, body).unwrap() else {
                panic!("{association}'s {event} was dropped")
            };
            assert_eq!(c.may_command, may_command, "{association}'s {event}");
            assert!(c.note.is_some(), "the domain can tell who spoke");
        }
    }
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
fn edits_of_first_comments_and_deletions_stay_ignored() {
    let edited = fixture("pull_request_review_comment.edited");
    assert!(edited["comment"]["in_reply_to_id"].is_null());
    assert!(
        matches!(
            parse("pull_request_review_comment", &edited).unwrap(),
            WebhookEvent::Ignored(_)
        ),
        "an edited first comment is no new command"
    );
    let mut deleted = fixture("pull_request_review_comment.reply");
    deleted["action"] = json!("deleted");
    assert!(matches!(
        parse("pull_request_review_comment", &deleted).unwrap(),
        WebhookEvent::Ignored(_)
    ));
}

#[test]
fn a_comment_names_itself_its_thread_and_its_author() {
    let WebhookEvent::Comment(c) = parse(
        "pull_request_review_comment",
        &fixture("pull_request_review_comment.reply"),
    )
    .unwrap() else {
        panic!()
    };
    let note = c.note.unwrap();
    assert_eq!(note.id, "284312631");
    assert_eq!(
        note.thread_id.as_deref(),
        Some("284312630"),
        "the thread's first comment"
    );
    assert_eq!(
        (note.author.username.as_str(), note.author.is_bot),
        ("octocat", false)
    );
    assert_eq!(note.author.id.as_deref(), Some("583231"));
    let mut on_pr = fixture("issue_comment.created");
    on_pr["issue"]["pull_request"] = json!({ "url": "https://api.github.com/repos/o/r/pulls/1" });
    on_pr["comment"]["user"]["type"] = json!("Bot");
    let WebhookEvent::Comment(c) = parse("issue_comment", &on_pr).unwrap() else {
        panic!()
    };
    let note = c.note.unwrap();
    assert_eq!((note.id.as_str(), note.thread_id), ("492700400", None));
    assert!(note.author.is_bot);
}
