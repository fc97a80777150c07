//! Input hygiene at the edge, before any handler or query runs: text that can never
//! be stored or makes no sense is a 400 naming where it was, never a 500 from
//! PostgreSQL (which refuses the NUL character in text).
//!
//! - the path and the query string: no control character (`%00`, `%0A`...) in any
//!   segment, parameter name or value (`INVALID_PATH`, `INVALID_QUERY`);
//! - JSON bodies (API calls, webhooks): no NUL (`\u0000`) in any string or key
//!   (`VALIDATION_FAILED`, the field as a JSON pointer such as `/object_attributes/title`).
//!   Other control characters may be legitimate there (tool output in a runner's log),
//!   so fields that must not carry them are checked by their own rules.
//!
//! Dashboard forms are checked by `reviewd-web`'s form extractor, which can name the
//! field on the page itself.

use crate::error::ApiError;
use crate::extract::{JSON_LIMIT_BYTES, RESULT_LIMIT_BYTES, WEBHOOK_BODY_LIMIT};
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header::CONTENT_TYPE;
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, ResponseError, web};
use futures_util::StreamExt;
use reviewd_domain::ErrorCode;
use serde_json::{Value, json};

/// The most of a body read here: the endpoint's own limit, so that no request makes
/// the server hold more than its endpoint would (runner results 16 MiB, webhooks
/// 10 MiB, every other JSON body 1 MiB).
fn body_limit(path: &str) -> usize {
    if path.starts_with("/api/runners/tasks/") && path.ends_with("/result") {
        RESULT_LIMIT_BYTES
    } else if path.starts_with("/api/webhook/") {
        WEBHOOK_BODY_LIMIT
    } else {
        JSON_LIMIT_BYTES
    }
}

/// Whether the path, `%XX`-decoded, has a control character.
fn control_in_path(raw: &str) -> bool {
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let decoded = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok());
        let b = match decoded {
            Some(b) => {
                i += 2;
                b
            }
            None => bytes[i],
        };
        if b < 0x20 || b == 0x7f {
            return true;
        }
        i += 1;
    }
    false
}

/// The first query parameter whose name or value has a control character.
fn control_in_query(query: &str) -> Option<String> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, v)| k.chars().chain(v.chars()).any(char::is_control))
        .map(|(k, _)| k.chars().filter(|c| !c.is_control()).collect())
}

/// The 400 for a NUL at `pointer`.
pub(crate) fn nul_error(pointer: &str) -> ApiError {
    ApiError::bad_request(ErrorCode::ValidationFailed, "some fields are invalid")
        .with_details(json!({ "fields": { pointer: ["must not contain the NUL character"] } }))
}

/// Whether the raw JSON text may hold an escaped NUL (`\u0000`, not `\\u0000`).
pub(crate) fn may_hold_nul(body: &[u8]) -> bool {
    body.windows(6).enumerate().any(|(i, w)| {
        w == b"\\u0000" && body[..i].iter().rev().take_while(|b| **b == b'\\').count() % 2 == 0
    })
}

/// The JSON pointer of the first string or key holding a NUL.
pub(crate) fn nul_pointer(value: &Value, at: &str) -> Option<String> {
    let escape = |k: &str| {
        k.replace('~', "~0")
            .replace('/', "~1")
            .replace('\0', "\\u0000")
    };
    match value {
        Value::String(s) if s.contains('\0') => Some(at.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| nul_pointer(v, &format!("{at}/{i}"))),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let here = format!("{at}/{}", escape(k));
            if k.contains('\0') {
                Some(here)
            } else {
                nul_pointer(v, &here)
            }
        }),
        _ => None,
    }
}

/// Whether the body may hold a number written with a fraction or an exponent.
fn may_hold_fraction(body: &[u8]) -> bool {
    body.iter().any(|b| matches!(b, b'.' | b'e' | b'E'))
}

/// JSON has one kind of number: `23.0` and `2.3e1` are the integer 23 to any JSON
/// client (and to JSON Schema), but not to serde, which refuses them for an integer
/// field. Such numbers become plain integers before the handlers see the body; any
/// other fraction is left for the field's own type to accept or refuse.
fn whole_floats_to_integers(value: &mut Value) -> bool {
    match value {
        Value::Number(n) if n.is_f64() => {
            let Some(f) = n.as_f64() else { return false };
            // Within this bound every whole f64 converts to i64 exactly.
            let whole = f.fract() == 0.0 && f.abs() < 9.2e18;
            if whole {
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "whole and within i64's range: checked above"
                )]
                let i = f as i64;
                *value = Value::from(i);
            }
            whole
        }
        // Every element is visited (no short circuit): all of them are rewritten.
        Value::Array(items) => {
            let mut changed = false;
            for item in items {
                changed |= whole_floats_to_integers(item);
            }
            changed
        }
        Value::Object(map) => {
            let mut changed = false;
            for item in map.values_mut() {
                changed |= whole_floats_to_integers(item);
            }
            changed
        }
        _ => false,
    }
}

fn is_json(req: &ServiceRequest) -> bool {
    req.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("application/json"))
}

/// What is wrong with the request's path, query or JSON body, if anything; a body
/// read to look at it is put back for the handler.
async fn problem(req: &mut ServiceRequest) -> Result<Option<ApiError>, Error> {
    if control_in_path(req.path()) {
        return Ok(Some(ApiError::bad_request(
            ErrorCode::InvalidPath,
            "the path contains a control character",
        )));
    }
    if let Some(name) = control_in_query(req.query_string()) {
        return Ok(Some(
            ApiError::bad_request(
                ErrorCode::InvalidQuery,
                format!("the query parameter `{name}` contains a control character"),
            )
            .with_details(json!({ "fields": { name: ["must not contain control characters"] } })),
        ));
    }
    // DELETE too: push/unsubscribe carries its endpoint in a body.
    let has_body = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    // Webhook bodies are left to their receivers: the signature covers the exact bytes,
    // and a caller that cannot authenticate learns nothing about its body (the
    // receivers check NUL after the token or signature).
    // A SARIF log is read by its own reader, which bounds its size and keeps no
    // control character of it.
    let sarif = req.path().starts_with("/api/projects/") && req.path().ends_with("/sarif");
    if !(has_body && is_json(req)) || req.path().starts_with("/api/webhook/") || sarif {
        return Ok(None);
    }
    let limit = body_limit(req.path());
    let mut body = web::BytesMut::new();
    let mut payload = req.take_payload();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk?;
        if body.len() + chunk.len() > limit {
            return Ok(Some(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::PayloadTooLarge,
                format!("request body exceeds {limit} bytes"),
            )));
        }
        body.extend_from_slice(&chunk);
    }
    let mut body = body.freeze();
    if (may_hold_nul(&body) || may_hold_fraction(&body))
        && let Ok(mut value) = serde_json::from_slice::<Value>(&body)
    {
        if let Some(pointer) = nul_pointer(&value, "") {
            return Ok(Some(nul_error(&pointer)));
        }
        if whole_floats_to_integers(&mut value)
            && let Ok(rewritten) = serde_json::to_vec(&value)
        {
            body = rewritten.into();
        }
    }
    req.set_payload(Payload::from(body));
    Ok(None)
}

/// Middleware: refuses control characters in paths and queries and NUL in JSON.
pub async fn check_input(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody + 'static>>, Error> {
    if let Some(error) = problem(&mut req).await? {
        tracing::info!(http.path = %req.path(), code = error.code.as_str(), "request.refused_input");
        let response = error.error_response();
        return Ok(req.into_response(response).map_into_right_body());
    }
    Ok(next.call(req).await?.map_into_left_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_written_as_floats_become_integers() {
        let mut v = json!({ "days": 23.0, "list": [1.5, 2e1, -0.0], "n": 7, "huge": 1e300 });
        assert!(whole_floats_to_integers(&mut v));
        assert_eq!(
            v,
            json!({ "days": 23, "list": [1.5, 20, 0], "n": 7, "huge": 1e300 })
        );
        let mut plain = json!({ "a": 1, "b": "2.0" });
        assert!(!whole_floats_to_integers(&mut plain));
    }

    #[test]
    fn each_endpoint_keeps_its_own_body_limit() {
        assert_eq!(
            body_limit("/api/runners/tasks/7/result"),
            RESULT_LIMIT_BYTES
        );
        assert_eq!(body_limit("/api/webhook/hostA"), WEBHOOK_BODY_LIMIT);
        assert_eq!(body_limit("/api/auth/login"), JSON_LIMIT_BYTES);
        assert_eq!(body_limit("/api/runners/tasks/7/logs"), JSON_LIMIT_BYTES);
    }

    #[test]
    fn control_characters_in_paths_are_found_encoded_or_not() {
        assert!(control_in_path("/api/runners/a%00b"));
        assert!(control_in_path("/api/runners/a%0ab"));
        assert!(control_in_path("/api/runners/a%7Fb"));
        assert!(!control_in_path("/api/runners/a%20b%2Fc"));
        assert!(!control_in_path("/api/reviews/50%"));
        assert!(!control_in_path("/api/reviews/%zz"));
    }

    #[test]
    fn query_parameters_with_control_characters_are_named() {
        assert_eq!(
            control_in_query("search=a%00b&page=1").as_deref(),
            Some("search")
        );
        assert_eq!(control_in_query("a=1&b%01=2").as_deref(), Some("b"));
        assert_eq!(control_in_query("search=caf%C3%A9+au+lait&page=2"), None);
    }

    #[test]
    fn escaped_nuls_are_found_with_their_place_and_escaped_backslashes_are_not() {
        let body = br#"{"object_attributes":{"title":"a\u0000b","labels":["x"]}}"#;
        assert!(may_hold_nul(body));
        let value: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(
            nul_pointer(&value, "").as_deref(),
            Some("/object_attributes/title")
        );
        let in_array: Value = serde_json::from_str(r#"{"a":["ok","\u0000"]}"#).unwrap();
        assert_eq!(nul_pointer(&in_array, "").as_deref(), Some("/a/1"));
        let in_key: Value = serde_json::from_str(r#"{"a/b\u0000":1}"#).unwrap();
        assert_eq!(nul_pointer(&in_key, "").as_deref(), Some("/a~1b\\u0000"));
        // `\\u0000` is a backslash followed by the text u0000: fine.
        assert!(!may_hold_nul(br#"{"a":"\\u0000"}"#));
        assert!(may_hold_nul(br#"{"a":"\\\u0000"}"#));
    }
}
