//! Malformed payloads refused naming the field; other kinds ignored.

use super::*;

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
