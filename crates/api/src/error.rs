//! `ApiError`: the error body of the API (`{"error": {code, message, details}}`) and
//! the mapping of domain errors onto status codes. 5xx causes are logged once, inside
//! the request's span (so with its request id), and never sent to the client.

use actix_web::http::StatusCode;
use actix_web::http::header::{HeaderValue, RETRY_AFTER};
use actix_web::{HttpResponse, ResponseError};
use reviewd_domain::ErrorCode;
use reviewd_domain::ports::PlatformError;
use reviewd_domain::services::{FieldError, ServiceError};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt;
use utoipa::ToSchema;

/// `{"error": {...}}`: every error answer of the API.
#[derive(Serialize, ToSchema)]
pub struct ErrorEnvelope {
    pub error: ErrorBody,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// What went wrong, for programs; `docs/api.md` explains each code.
    #[schema(schema_with = error_code_schema)]
    pub code: &'static str,
    /// What went wrong, for people.
    pub message: String,
    /// `fields` (a map of field name or JSON pointer to messages) for invalid input;
    /// other keys where an error says more (the linked projects of a refused delete).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<Value>,
}

/// The `code` schema: an enumeration of every `ErrorCode`.
fn error_code_schema() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .enum_values(Some(ErrorCode::ALL.iter().map(|c| c.as_str())))
        .build()
}

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: ErrorCode,
    pub message: String,
    pub details: Option<Value>,
    pub retry_after_secs: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            details: None,
            retry_after_secs: None,
        }
    }

    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    pub fn bad_request(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, ErrorCode::Forbidden, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, message)
    }

    /// A 400 naming each bad field: `details.fields = {"email": ["..."]}`.
    pub fn invalid_fields(errors: &[FieldError]) -> Self {
        let mut fields: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for e in errors {
            fields
                .entry(e.field.as_str())
                .or_default()
                .push(e.message.as_str());
        }
        Self::bad_request(ErrorCode::ValidationFailed, "some fields are invalid")
            .with_details(json!({ "fields": fields }))
    }

    /// A 500 whose cause is logged here and hidden from the client.
    pub fn internal(cause: impl fmt::Display) -> Self {
        tracing::error!(error = %cause, "request.internal_error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::InternalError,
            "internal error; see the server log for this request id",
        )
    }

    /// A 503: a dependency is down. The cause is logged, not sent.
    pub fn unavailable(cause: impl fmt::Display) -> Self {
        tracing::error!(error = %cause, "request.dependency_unavailable");
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ServiceUnavailable,
            "a dependency of the service is unavailable; retry later",
        )
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let body = ErrorBody {
            code: self.code.as_str(),
            message: self.message.clone(),
            details: self.details.clone(),
        };
        let mut response = HttpResponse::build(self.status);
        if let Some(value) = self
            .retry_after_secs
            .and_then(|s| HeaderValue::from_str(&s.to_string()).ok())
        {
            response.insert_header((RETRY_AFTER, value));
        }
        response.json(ErrorEnvelope { error: body })
    }
}

impl From<ServiceError> for ApiError {
    fn from(err: ServiceError) -> Self {
        match err {
            ServiceError::Invalid(fields) => ApiError::invalid_fields(&fields),
            ServiceError::BadRequest { code, message } => {
                ApiError::new(refusal_status(code), code, message)
            }
            ServiceError::Platform(e) => platform_error(e),
            ServiceError::Unauthenticated => ApiError::unauthorized("authentication required"),
            ServiceError::InvalidCredentials => ApiError::new(
                StatusCode::UNAUTHORIZED,
                ErrorCode::InvalidCredentials,
                "invalid email or password",
            ),
            ServiceError::Forbidden(why) => ApiError::forbidden(why),
            ServiceError::NotFound(what) => ApiError::not_found(format!("{what} not found")),
            ServiceError::Conflict(what) => ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::Conflict,
                conflict_message(&what),
            ),
            ServiceError::Throttled { retry_after } => {
                let secs = retry_after.as_secs().max(1);
                let mut e = ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    ErrorCode::RateLimited,
                    format!("too many attempts; retry in {secs} s"),
                );
                e.retry_after_secs = Some(secs);
                e
            }
            ServiceError::Unavailable(why) => ApiError::unavailable(why),
            ServiceError::Internal(why) => ApiError::internal(why),
        }
    }
}

/// A refusal because of what is stored (the project is disabled, no OAuth flow is
/// pending, no webhook to remove) is a 409: the same request can succeed once that
/// changes. Any other refusal is about the request itself: 400.
fn refusal_status(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::ProjectDisabled
        | ErrorCode::PlatformConfigDisabled
        | ErrorCode::PlatformNotAuthorized
        | ErrorCode::OauthStateMismatch
        | ErrorCode::NotAnOauthConfig
        | ErrorCode::NoRefreshToken
        | ErrorCode::NoWebhook
        | ErrorCode::UnsupportedPlatform => StatusCode::CONFLICT,
        _ => StatusCode::BAD_REQUEST,
    }
}

/// Platform failures: what the caller can act on keeps its meaning (404, 400, 429);
/// the platform refusing our stored token or misbehaving is a 502, being down a 503.
fn platform_error(err: PlatformError) -> ApiError {
    match err {
        PlatformError::NotFound(m) => {
            ApiError::not_found(format!("not found on the platform: {m}"))
        }
        PlatformError::Rejected(m) => ApiError::bad_request(
            ErrorCode::PlatformRejected,
            format!("the platform rejected the request: {m}"),
        ),
        // The stored config's platform cannot do this: the state, not the request.
        PlatformError::Unsupported(what) => ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::UnsupportedPlatform,
            format!("not supported by {what}"),
        ),
        PlatformError::RateLimited { retry_after } => {
            let mut e = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::PlatformRateLimited,
                "the platform is rate limiting requests; retry later",
            );
            e.retry_after_secs = retry_after.map(|d| d.as_secs().max(1));
            e
        }
        PlatformError::Unauthorized(_) => ApiError::new(
            StatusCode::BAD_GATEWAY,
            ErrorCode::PlatformUnauthorized,
            "the platform rejected the stored access token; update the platform config",
        ),
        PlatformError::Forbidden(m) => ApiError::new(
            StatusCode::BAD_GATEWAY,
            ErrorCode::PlatformForbidden,
            format!("the platform refused the operation for this token: {m}"),
        ),
        PlatformError::InvalidResponse(m) => {
            tracing::warn!(error = %m, "platform.invalid_response");
            ApiError::new(
                StatusCode::BAD_GATEWAY,
                ErrorCode::PlatformError,
                "the platform answered in an unexpected way",
            )
        }
        PlatformError::Unavailable(m) => {
            tracing::warn!(error = %m, "platform.unavailable");
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::PlatformUnavailable,
                "the platform cannot be reached; retry later",
            )
        }
    }
}

/// Turns a constraint name into a sentence a client can act on.
fn conflict_message(constraint: &str) -> String {
    match constraint {
        "users_email_key" => "a user with this email already exists".to_owned(),
        "review_templates_default_is_global" => {
            "the default template is global: it cannot belong to a project".to_owned()
        }
        other => format!("conflicts with an existing record ({other})"),
    }
}

#[cfg(test)]
mod tests {
    use reviewd_domain::ErrorCode;

    #[test]
    fn the_api_document_explains_every_error_code() {
        let doc = include_str!("../../../docs/api.md");
        let missing: Vec<&str> = ErrorCode::ALL
            .iter()
            .map(|c| c.as_str())
            .filter(|c| !doc.contains(&format!("`{c}`")))
            .collect();
        assert!(missing.is_empty(), "docs/api.md does not name {missing:?}");
    }
}
