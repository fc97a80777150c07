//! Gives every request an id (the caller's `X-Request-Id` when it is sane, else a new
//! UUID), returns it in `X-Request-Id`, runs the request inside a span carrying it,
//! and logs one line per request with its status and duration.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage};
use std::time::Instant;
use tracing::Instrument;

pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// The id of the current request, also stored in the request's extensions.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

fn incoming_id(req: &ServiceRequest) -> Option<String> {
    let value = req.headers().get(REQUEST_ID_HEADER)?.to_str().ok()?;
    let sane = !value.is_empty()
        && value.len() <= 64
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    sane.then(|| value.to_owned())
}

pub async fn request_id(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, Error> {
    let id = incoming_id(&req).unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    req.extensions_mut().insert(RequestId(id.clone()));
    let span = tracing::info_span!(
        "http.request",
        request.id = %id,
        http.method = %req.method(),
        http.path = %req.path(),
        user.id = tracing::field::Empty,
    );
    let started = Instant::now();
    let mut response = next.call(req).instrument(span.clone()).await?;
    let status = response.status().as_u16();
    let duration_ms = started.elapsed().as_millis();
    span.in_scope(|| tracing::info!(http.status = status, duration_ms, "http.response"));
    if let Ok(value) = HeaderValue::from_str(&id) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(REQUEST_ID_HEADER), value);
    }
    Ok(response)
}
