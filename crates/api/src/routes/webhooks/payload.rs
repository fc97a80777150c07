//! Reading fields out of webhook JSON with errors that name the missing field.

use crate::error::ApiError;
use reviewd_domain::ErrorCode;
use serde_json::Value;

/// The body as JSON, whatever its `Content-Type` said (the edge check only reads
/// bodies declared as JSON), with no NUL in any string.
pub fn parse(body: &[u8]) -> Result<Value, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(
            ErrorCode::InvalidPayload,
            format!("the body is not JSON: {e}"),
        )
    })?;
    // Walking every key costs a path per key: only when the text may hold a NUL.
    if !crate::hygiene::may_hold_nul(body) {
        return Ok(value);
    }
    match crate::hygiene::nul_pointer(&value, "") {
        Some(pointer) => Err(crate::hygiene::nul_error(&pointer)),
        None => Ok(value),
    }
}

fn missing(field: &str) -> ApiError {
    ApiError::bad_request(
        ErrorCode::InvalidPayload,
        format!("missing or malformed field `{field}`"),
    )
}

pub fn string<'a>(v: &'a Value, pointer: &str, name: &str) -> Result<&'a str, ApiError> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .ok_or_else(|| missing(name))
}

/// An MR/PR number: a whole number from 1 up to `i64::MAX` (platforms count from
/// 1; zero, negative, fractional or larger numbers are refused here rather than
/// queued to fail at the platform).
pub fn iid(v: &Value, pointer: &str, name: &str) -> Result<i64, ApiError> {
    v.pointer(pointer)
        .and_then(Value::as_i64)
        .filter(|n| *n >= 1)
        .ok_or_else(|| {
            ApiError::bad_request(
                ErrorCode::InvalidPayload,
                format!("`{name}` must be a whole number from 1 to {}", i64::MAX),
            )
        })
}

/// An id that platforms send as a number (GitLab, GitHub) but some proxies stringify.
pub fn id(v: &Value, pointer: &str, name: &str) -> Result<String, ApiError> {
    match v.pointer(pointer) {
        Some(Value::Number(n)) => Ok(n.to_string()),
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        _ => Err(missing(name)),
    }
}

pub fn optional_string(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

pub fn optional_id(v: &Value, pointer: &str) -> Option<String> {
    match v.pointer(pointer) {
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}
