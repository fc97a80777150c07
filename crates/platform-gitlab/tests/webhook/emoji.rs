//! Award emoji on a merge request's comments, and emoji elsewhere.

use super::*;

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
