//! Enumerated query parameters (`status`, `channel`, `checkType`...), the same on every
//! route: absent is `None`, a listed value is parsed, anything else is 400
//! `INVALID_QUERY` naming the parameter and listing what it takes.

use crate::error::ApiError;
use reviewd_domain::ErrorCode;
use serde_json::json;

/// Parses `value` of the parameter `name` with `parse`; `allowed` is what the error
/// lists.
///
/// # Errors
/// 400 `INVALID_QUERY` for a value `parse` does not know.
pub fn choice<T>(
    name: &str,
    value: Option<&str>,
    allowed: &[&str],
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Option<T>, ApiError> {
    let Some(value) = value else {
        return Ok(None);
    };
    parse(value).map(Some).ok_or_else(|| {
        let list = allowed.join(", ");
        ApiError::bad_request(
            ErrorCode::InvalidQuery,
            format!("{name} must be one of {list}"),
        )
        .with_details(json!({ "fields": { name: [format!("must be one of {list}")] } }))
    })
}

/// As [`choice`], for parameters kept as their text: one of `allowed`.
///
/// # Errors
/// 400 `INVALID_QUERY` for a value not in `allowed`.
pub fn one_of(
    name: &str,
    value: Option<&str>,
    allowed: &[&str],
) -> Result<Option<String>, ApiError> {
    choice(name, value, allowed, |v| {
        allowed.contains(&v).then(|| v.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_listed_and_unknown_values() {
        let allowed = ["auto", "manual"];
        assert_eq!(one_of("triggeredBy", None, &allowed).unwrap(), None);
        assert_eq!(
            one_of("triggeredBy", Some("auto"), &allowed)
                .unwrap()
                .as_deref(),
            Some("auto")
        );
        let err = one_of("triggeredBy", Some("Auto"), &allowed).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidQuery);
        assert_eq!(err.message, "triggeredBy must be one of auto, manual");
        assert_eq!(
            err.details.unwrap()["fields"]["triggeredBy"][0],
            "must be one of auto, manual"
        );
    }
}
