//! What the receivers check of a webhook body before the platform crate reads it, and
//! how a body of the wrong shape is answered.

use crate::error::ApiError;
use reviewd_domain::ErrorCode;
use reviewd_domain::model::webhook_payload::InvalidPayload;
use serde_json::Value;

/// Refuses a JSON body with a NUL in any string, as the edge does for every JSON body
/// (the edge's own check reads only bodies declared as JSON; webhooks are read whatever
/// their `Content-Type` said). A body that is not JSON is left to the platform's reader.
pub fn refuse_nul(body: &[u8]) -> Result<(), ApiError> {
    // Walking every key costs a path per key: only when the text may hold a NUL.
    if !crate::hygiene::may_hold_nul(body) {
        return Ok(());
    }
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return Ok(());
    };
    match crate::hygiene::nul_pointer(&value, "") {
        Some(pointer) => Err(crate::hygiene::nul_error(&pointer)),
        None => Ok(()),
    }
}

/// A payload the platform's reader refused: a 400 that names the field.
pub fn invalid(e: InvalidPayload) -> ApiError {
    ApiError::bad_request(ErrorCode::InvalidPayload, e.0)
}
