//! Rules for text that names something (a key, a user, a platform config, a template):
//! one line a person can read. Free text (instructions, summaries, log lines) may hold
//! newlines and tabs and is not checked here.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use utoipa::openapi::{ObjectBuilder, RefOr, Schema, Type};
use validator::{ValidateLength, ValidationError};

/// What the document promises of a name: no control character anywhere, and at least one
/// character that is neither a control nor white space (blankness is the service's to
/// refuse, with the body's other faults, so the check below leaves it).
const PATTERN: &str = r"^[^\u0000-\u001f\u007f-\u009f]*[^\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000-\u001f\u007f-\u009f]*$";

/// A name of at most `MAX` characters on one line. Any JSON string deserializes, so a
/// bad one is reported with the body's other faults: its DTO field says
/// `#[validate(length(max = MAX), custom(function = "crate::extract::single_line"))]`.
/// Its schema (a string with `maxLength` and the pattern) is one component of the API
/// document per length (`SingleLine200`), which the fields refer to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SingleLine<const MAX: usize>(String);

impl<const MAX: usize> SingleLine<MAX> {
    #[must_use]
    pub fn into_inner(self) -> String {
        self.0
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<const MAX: usize> From<SingleLine<MAX>> for String {
    fn from(value: SingleLine<MAX>) -> Self {
        value.0
    }
}

impl<'de, const MAX: usize> Deserialize<'de> for SingleLine<MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self)
    }
}

/// Validation errors echo the value they refuse.
impl<const MAX: usize> Serialize for SingleLine<MAX> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<const MAX: usize> ValidateLength<u64> for SingleLine<MAX> {
    fn length(&self) -> Option<u64> {
        self.0.length()
    }
}

impl<const MAX: usize> utoipa::PartialSchema for SingleLine<MAX> {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .max_length(Some(MAX))
            .pattern(Some(PATTERN))
            .description(Some(
                "A name on one line: no control character, and not blank.",
            ))
            .into()
    }
}

impl<const MAX: usize> utoipa::ToSchema for SingleLine<MAX> {
    fn name() -> Cow<'static, str> {
        Cow::Owned(format!("SingleLine{MAX}"))
    }
}

/// No control character (newline, tab, escape, C1...) anywhere.
///
/// # Errors
/// A `single_line` error with a message for the client.
pub fn single_line<const MAX: usize>(value: &SingleLine<MAX>) -> Result<(), ValidationError> {
    if value.0.chars().any(char::is_control) {
        return Err(ValidationError::new("single_line")
            .with_message("must be one line without control characters".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str) -> SingleLine<200> {
        serde_json::from_value(serde_json::json!(text)).unwrap()
    }

    #[test]
    fn names_are_one_readable_line() {
        assert!(single_line(&name("CI key – build 7")).is_ok());
        // Blank is the service's to refuse (with the body's other faults).
        assert!(single_line(&name("   ")).is_ok());
        for bad in ["two\nlines", "tab\there", "bell\u{7}", "c1\u{85}"] {
            assert!(single_line(&name(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_pattern_says_what_the_check_and_the_service_refuse() {
        let pattern = regex_lite(PATTERN);
        for good in ["CI key – build 7", "x", " padded "] {
            assert!(pattern.is_match(good), "{good:?}");
        }
        for bad in ["", "   ", "two\nlines", "c1\u{85}", "\u{3000}"] {
            assert!(!pattern.is_match(bad), "{bad:?}");
        }
    }

    /// JSON Schema's `\uXXXX` escapes as the `regex` crate writes them.
    fn regex_lite(pattern: &str) -> regex::Regex {
        let mut out = String::new();
        let mut rest = pattern;
        while let Some(i) = rest.find("\\u") {
            out.push_str(&rest[..i]);
            out.push_str(&format!("\\x{{{}}}", &rest[i + 2..i + 6]));
            rest = &rest[i + 6..];
        }
        out.push_str(rest);
        regex::Regex::new(&out).unwrap()
    }
}
