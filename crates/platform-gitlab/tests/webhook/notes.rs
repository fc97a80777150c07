//! Comments on merge requests, in threads or standing alone.

use super::*;

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
