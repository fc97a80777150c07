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

#[test]
fn a_note_names_itself_its_thread_and_its_author() {
    use reviewd_domain::model::NoteRef;
    use reviewd_domain::model::conversation::CommentAuthor;
    let WebhookEvent::Comment(c) = parse(&fixture("note_diff_merge_request.json")).unwrap() else {
        panic!()
    };
    assert_eq!(
        c.note,
        Some(NoteRef {
            id: "1312".into(),
            thread_id: Some("a6f1b0e4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8".into()),
            author: CommentAuthor {
                id: Some("51".into()),
                username: "dana".into(),
                is_bot: false,
            },
        })
    );
    // A lone note has no thread to answer in; an edit is no new word.
    let WebhookEvent::Comment(c) = parse(&fixture("note_merge_request.json")).unwrap() else {
        panic!()
    };
    let note = c.note.unwrap();
    assert_eq!((note.id.as_str(), note.thread_id), ("1244", None));
    let mut edited = fixture("note_diff_merge_request.json");
    edited["object_attributes"]["action"] = json!("update");
    let WebhookEvent::Comment(c) = parse(&edited).unwrap() else {
        panic!()
    };
    assert_eq!(c.note, None);
    // Project and group access tokens' users are bots.
    let mut bot = fixture("note_merge_request.json");
    bot["user"]["username"] = json!("project_42_bot_3f9a2c");
    let WebhookEvent::Comment(c) = parse(&bot).unwrap() else {
        panic!()
    };
    assert!(c.note.unwrap().author.is_bot);
}
