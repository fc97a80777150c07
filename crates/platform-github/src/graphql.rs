//! GitHub's GraphQL API, for what REST does not show: whether a review thread is
//! resolved, and by whom.

use reviewd_domain::ports::PlatformError;
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// A GraphQL answer: the data asked for, or the errors that kept it from being read
/// (GitHub answers those with 200).
#[derive(Debug, Deserialize)]
struct Envelope<T> {
    data: Option<T>,
    #[serde(default)]
    errors: Vec<GraphqlError>,
}

#[derive(Debug, Deserialize)]
struct GraphqlError {
    /// `NOT_FOUND`, `FORBIDDEN`, `RATE_LIMITED`...; absent for a malformed query.
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    message: String,
}

/// The `data` of a GraphQL answer.
///
/// # Errors
/// The first error GitHub reported, as the variant its `type` means (`NotFound`,
/// `Forbidden`, `RateLimited`), else `InvalidResponse`; `InvalidResponse` for a
/// body that is no GraphQL answer of the shape expected.
pub fn data<T: DeserializeOwned>(body: &[u8]) -> Result<T, PlatformError> {
    let envelope: Envelope<T> = serde_json::from_slice(body)
        .map_err(|e| PlatformError::InvalidResponse(format!("GraphQL answer: {e}")))?;
    if let Some(error) = envelope.errors.into_iter().next() {
        let message = error.message;
        return Err(match error.kind.as_deref() {
            Some("NOT_FOUND") => PlatformError::NotFound(message),
            Some("FORBIDDEN") => PlatformError::Forbidden(message),
            Some("RATE_LIMITED") => PlatformError::RateLimited { retry_after: None },
            _ => PlatformError::InvalidResponse(format!("GraphQL: {message}")),
        });
    }
    envelope
        .data
        .ok_or_else(|| PlatformError::InvalidResponse("GraphQL answer without data".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn errors_answered_with_200_are_errors() {
        let unknown = br#"{"data":{"repository":{"pullRequest":null}},"errors":[{"type":"NOT_FOUND","path":["repository","pullRequest"],"locations":[{"line":1,"column":60}],"message":"Could not resolve to a PullRequest with the number of 9."}]}"#;
        assert!(
            matches!(data::<Value>(unknown), Err(PlatformError::NotFound(m)) if m.contains("number of 9"))
        );
        let limited =
            br#"{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded"}]}"#;
        assert_eq!(
            data::<Value>(limited),
            Err(PlatformError::RateLimited { retry_after: None })
        );
        let malformed = br#"{"errors":[{"message":"Parse error on \"}\" (RCURLY) at [1, 2]","locations":[{"line":1,"column":2}]}]}"#;
        assert!(matches!(
            data::<Value>(malformed),
            Err(PlatformError::InvalidResponse(_))
        ));
        assert!(matches!(
            data::<Value>(b"{}"),
            Err(PlatformError::InvalidResponse(_))
        ));
        assert_eq!(
            data::<Value>(br#"{"data":{"a":1}}"#),
            Ok(serde_json::json!({ "a": 1 }))
        );
    }
}
