//! Merge request events, and updates that only changed assignment.

use super::*;

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
