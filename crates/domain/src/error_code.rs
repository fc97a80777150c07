//! Every code the API puts in `error.code`, in one place: handlers, extractors and the
//! domain's refusals name a variant, never a string. `docs/api.md` explains each one
//! (a test keeps the two in step).

/// The reason of an error answer, as `SCREAMING_SNAKE` text on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    // The request itself.
    /// A field broke a rule; `details.fields` names each one.
    ValidationFailed,
    /// Malformed JSON, a wrong type, a missing or unknown field.
    InvalidBody,
    /// A malformed query parameter.
    InvalidQuery,
    /// A malformed path parameter.
    InvalidPath,
    /// A malformed header (runner registration headers, for one).
    InvalidHeader,
    /// A required header is missing.
    MissingHeader,
    /// A webhook without its event header.
    MissingEventHeader,
    /// A webhook body that is not the platform's shape.
    InvalidPayload,
    PayloadTooLarge,
    UnsupportedMediaType,
    // Who is calling.
    Unauthorized,
    InvalidCredentials,
    Forbidden,
    /// A cookie-authenticated write (or a login) from a page of another origin.
    CsrfOriginMismatch,
    RateLimited,
    // What it is about.
    NotFound,
    /// The path exists, but not with this method; `Allow` lists the ones it has.
    MethodNotAllowed,
    Conflict,
    // The domain's refusals.
    ProjectDisabled,
    ProjectsLinked,
    PlatformConfigDisabled,
    PlatformNotAuthorized,
    OauthStateMismatch,
    NotAnOauthConfig,
    NoRefreshToken,
    NoWebhook,
    FileNotInDiff,
    UnsupportedPlatform,
    // The hosting platform's answers.
    PlatformRejected,
    PlatformRateLimited,
    PlatformUnauthorized,
    PlatformForbidden,
    PlatformError,
    PlatformUnavailable,
    // The server.
    InternalError,
    ServiceUnavailable,
    /// A webhook was recorded but the queue could not take its task.
    QueueUnavailable,
}

impl ErrorCode {
    pub const ALL: &'static [ErrorCode] = &[
        Self::ValidationFailed,
        Self::InvalidBody,
        Self::InvalidQuery,
        Self::InvalidPath,
        Self::InvalidHeader,
        Self::MissingHeader,
        Self::MissingEventHeader,
        Self::InvalidPayload,
        Self::PayloadTooLarge,
        Self::UnsupportedMediaType,
        Self::Unauthorized,
        Self::InvalidCredentials,
        Self::Forbidden,
        Self::CsrfOriginMismatch,
        Self::RateLimited,
        Self::NotFound,
        Self::MethodNotAllowed,
        Self::Conflict,
        Self::ProjectDisabled,
        Self::ProjectsLinked,
        Self::PlatformConfigDisabled,
        Self::PlatformNotAuthorized,
        Self::OauthStateMismatch,
        Self::NotAnOauthConfig,
        Self::NoRefreshToken,
        Self::NoWebhook,
        Self::FileNotInDiff,
        Self::UnsupportedPlatform,
        Self::PlatformRejected,
        Self::PlatformRateLimited,
        Self::PlatformUnauthorized,
        Self::PlatformForbidden,
        Self::PlatformError,
        Self::PlatformUnavailable,
        Self::InternalError,
        Self::ServiceUnavailable,
        Self::QueueUnavailable,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ValidationFailed => "VALIDATION_FAILED",
            Self::InvalidBody => "INVALID_BODY",
            Self::InvalidQuery => "INVALID_QUERY",
            Self::InvalidPath => "INVALID_PATH",
            Self::InvalidHeader => "INVALID_HEADER",
            Self::MissingHeader => "MISSING_HEADER",
            Self::MissingEventHeader => "MISSING_EVENT_HEADER",
            Self::InvalidPayload => "INVALID_PAYLOAD",
            Self::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            Self::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
            Self::Unauthorized => "UNAUTHORIZED",
            Self::InvalidCredentials => "INVALID_CREDENTIALS",
            Self::Forbidden => "FORBIDDEN",
            Self::CsrfOriginMismatch => "CSRF_ORIGIN_MISMATCH",
            Self::RateLimited => "RATE_LIMITED",
            Self::NotFound => "NOT_FOUND",
            Self::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            Self::Conflict => "CONFLICT",
            Self::ProjectDisabled => "PROJECT_DISABLED",
            Self::ProjectsLinked => "PROJECTS_LINKED",
            Self::PlatformConfigDisabled => "PLATFORM_CONFIG_DISABLED",
            Self::PlatformNotAuthorized => "PLATFORM_NOT_AUTHORIZED",
            Self::OauthStateMismatch => "OAUTH_STATE_MISMATCH",
            Self::NotAnOauthConfig => "NOT_AN_OAUTH_CONFIG",
            Self::NoRefreshToken => "NO_REFRESH_TOKEN",
            Self::NoWebhook => "NO_WEBHOOK",
            Self::FileNotInDiff => "FILE_NOT_IN_DIFF",
            Self::UnsupportedPlatform => "UNSUPPORTED_PLATFORM",
            Self::PlatformRejected => "PLATFORM_REJECTED",
            Self::PlatformRateLimited => "PLATFORM_RATE_LIMITED",
            Self::PlatformUnauthorized => "PLATFORM_UNAUTHORIZED",
            Self::PlatformForbidden => "PLATFORM_FORBIDDEN",
            Self::PlatformError => "PLATFORM_ERROR",
            Self::PlatformUnavailable => "PLATFORM_UNAVAILABLE",
            Self::InternalError => "INTERNAL_ERROR",
            Self::ServiceUnavailable => "SERVICE_UNAVAILABLE",
            Self::QueueUnavailable => "QUEUE_UNAVAILABLE",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorCode;

    #[test]
    fn codes_are_distinct_screaming_snake_text() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            let text = code.as_str();
            assert!(
                text.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
                "{text}"
            );
            assert!(seen.insert(text), "{text} twice");
        }
    }
}
