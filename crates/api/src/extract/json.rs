use crate::error::ApiError;
use actix_web::dev::Payload;
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::future::LocalBoxFuture;
use reviewd_domain::ErrorCode;
use reviewd_domain::services::FieldError;
use serde::de::DeserializeOwned;
use serde_json::json;
use validator::{Validate, ValidationErrors};

/// Default body limit of JSON endpoints (runner results get a larger one).
pub const JSON_LIMIT_BYTES: usize = 1024 * 1024;

/// Body limit of a runner's result: every file's comments and a last batch of logs.
pub const RESULT_LIMIT_BYTES: usize = 16 * 1024 * 1024;

/// Body limit of a webhook: platforms send large MR payloads (GitLab includes commits and
/// changes). Read raw, not as JSON: signatures are over the exact bytes.
pub const WEBHOOK_BODY_LIMIT: usize = 10 * 1024 * 1024;

/// JSON body errors as the API's error body, never actix's plain text.
pub fn json_config() -> web::JsonConfig {
    json_config_limited(JSON_LIMIT_BYTES)
}

/// As [`json_config`], with another body limit.
pub fn json_config_limited(limit: usize) -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(limit)
        .error_handler(move |err, _req| json_error(&err, limit).into())
}

fn json_error(err: &JsonPayloadError, limit: usize) -> ApiError {
    match err {
        JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::PayloadTooLarge,
                format!("request body exceeds {limit} bytes"),
            )
        }
        JsonPayloadError::ContentType => ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::UnsupportedMediaType,
            "expected Content-Type: application/json",
        ),
        JsonPayloadError::Deserialize(e) => {
            ApiError::bad_request(ErrorCode::InvalidBody, format!("invalid JSON body: {e}"))
                .with_details(json!({ "line": e.line(), "column": e.column() }))
        }
        other => ApiError::bad_request(
            ErrorCode::InvalidBody,
            format!("cannot read the request body: {other}"),
        ),
    }
}

pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err: QueryPayloadError, _req| {
        ApiError::bad_request(
            ErrorCode::InvalidQuery,
            format!("invalid query parameters: {err}"),
        )
        .into()
    })
}

pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|err: PathError, req| {
        if let Some(response) = crate::fallback::method_not_allowed(req) {
            return actix_web::error::InternalError::from_response(err, response).into();
        }
        ApiError::bad_request(
            ErrorCode::InvalidPath,
            format!("invalid path parameter: {err}"),
        )
        .into()
    })
}

/// A JSON body that deserialized (unknown fields are refused by each DTO's
/// `deny_unknown_fields`) and passed its `validator` rules.
pub struct ValidatedJson<T>(pub T);

impl<T: DeserializeOwned + Validate + 'static> FromRequest for ValidatedJson<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let json = web::Json::<T>::from_request(req, payload);
        Box::pin(async move {
            let body = json.await?.into_inner();
            body.validate()
                .map_err(|e| ApiError::invalid_fields(&field_errors(&e)))?;
            Ok(ValidatedJson(body))
        })
    }
}

/// `rule_name` → `ruleName`: `validator` names the Rust field, the client knows the
/// body's (camelCase) name.
fn camel_case(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut upper = false;
    for c in field.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Flattens `validator`'s errors into `field: message` pairs (camelCase names).
fn field_errors(errors: &ValidationErrors) -> Vec<FieldError> {
    errors
        .field_errors()
        .into_iter()
        .flat_map(|(field, errs)| {
            errs.iter().map(move |e| {
                let message = e
                    .message
                    .as_ref()
                    .map_or_else(|| e.code.to_string(), ToString::to_string);
                FieldError::new(camel_case(&field), message)
            })
        })
        .collect()
}
