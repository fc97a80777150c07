//! GitHub's REST basics as the fake reads and answers them: the bearer token of a request,
//! and the error body.

use serde_json::json;
use wiremock::{Request, ResponseTemplate};

/// The token of `Authorization: Bearer <token>`.
pub(super) fn bearer(request: &Request) -> Option<&str> {
    request
        .headers
        .get("authorization")?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
}

/// An error as GitHub's REST API answers one.
pub(super) fn error(status: u16, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({
        "message": message, "documentation_url": "https://docs.github.com/rest", "status": status.to_string(),
    }))
}
