//! A body read raw (a webhook's signature is over its exact bytes; a SARIF log is
//! read by its own parser), with the API's 413 past a limit.

use crate::error::ApiError;
use actix_web::http::StatusCode;
use actix_web::web;
use futures_util::StreamExt;
use reviewd_domain::ErrorCode;

/// The whole body, refused with `PAYLOAD_TOO_LARGE` once it passes `limit` bytes
/// (`what` names it in the message).
///
/// # Errors
/// Past the limit, or the connection failed mid-body.
pub async fn read_limited(
    mut payload: web::Payload,
    limit: usize,
    what: &str,
) -> Result<web::Bytes, ApiError> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError::bad_request(ErrorCode::InvalidBody, format!("cannot read the body: {e}"))
        })?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::PayloadTooLarge,
                format!("{what} exceeds {} MiB", limit / (1024 * 1024)),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}
