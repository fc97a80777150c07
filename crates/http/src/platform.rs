use crate::HttpError;
use reviewd_domain::ports::PlatformError;

/// How a platform adapter reports an HTTP failure: the status decides the variant.
#[must_use]
pub fn platform_error(err: HttpError) -> PlatformError {
    match err {
        HttpError::Status {
            rate_limited: true,
            retry_after,
            ..
        } => PlatformError::RateLimited { retry_after },
        HttpError::Status {
            status: 401,
            message,
            ..
        } => PlatformError::Unauthorized(message),
        HttpError::Status {
            status: 403,
            message,
            ..
        } => PlatformError::Forbidden(message),
        HttpError::Status {
            status: 404,
            message,
            ..
        } => PlatformError::NotFound(message),
        HttpError::Status {
            status: 400 | 409 | 422,
            message,
            ..
        } => PlatformError::Rejected(message),
        HttpError::Status {
            status, message, ..
        } => PlatformError::Unavailable(format!("HTTP {status}: {message}")),
        HttpError::Timeout(d) => PlatformError::Unavailable(format!("no answer within {d:?}")),
        HttpError::Connect(e) | HttpError::Interrupted(e) => PlatformError::Unavailable(e),
        HttpError::Decode(e) => PlatformError::InvalidResponse(e),
        e @ HttpError::TooLarge(_) => PlatformError::Rejected(e.to_string()),
    }
}
