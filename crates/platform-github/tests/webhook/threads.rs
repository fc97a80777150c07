//! Resolved and reopened threads as feedback on their first comment.

use super::*;

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
