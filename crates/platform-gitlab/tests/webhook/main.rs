//! GitLab's webhook payloads, as its documentation shows them (`tests/fixtures/webhooks/hostA/`),
//! read into the domain's events; malformed ones refused with the field named.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod emoji;
mod malformed;
mod merge_requests;
mod notes;

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
