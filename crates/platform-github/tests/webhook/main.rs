//! GitHub's webhook payloads, as its published examples show them
//! (`tests/fixtures/webhooks/hostB/`), read into the domain's events; malformed ones
//! refused with the field named.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod comments;
mod installations;
mod threads;

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
