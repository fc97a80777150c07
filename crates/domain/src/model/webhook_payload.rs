//! Reading a platform's webhook payload into its typed shape (the platform crates own
//! the shapes): the error that names the field at fault, and the fields every platform
//! sends its own way (ids that are numbers, or strings after some proxies; MR numbers
//! from 1).

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use std::fmt;

/// A webhook body that is not the platform's shape; the message names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidPayload(pub String);

impl InvalidPayload {
    /// A required field is absent (or null).
    #[must_use]
    pub fn missing(field: &str) -> Self {
        Self(format!("missing or malformed field `{field}`"))
    }
}

/// `body` read as `T`; a field of the wrong type is named by its path
/// (`object_attributes.iid: ...`).
///
/// # Errors
/// The body is not JSON, or not `T`'s shape.
pub fn read<T: DeserializeOwned>(body: &[u8]) -> Result<T, InvalidPayload> {
    let mut json = serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() || path == "." {
            InvalidPayload(format!("the body is not JSON of this event: {inner}"))
        } else {
            InvalidPayload(format!("`{path}`: {inner}"))
        }
    })
}

/// `value`, or the error naming `field` when it is absent.
///
/// # Errors
/// `field` is missing.
pub fn required<T>(value: Option<T>, field: &str) -> Result<T, InvalidPayload> {
    value.ok_or_else(|| InvalidPayload::missing(field))
}

/// An id that platforms send as a number (GitLab, GitHub) but some proxies stringify;
/// kept as its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireId(pub String);

impl<'de> de::Deserialize<'de> for WireId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl Visitor<'_> for IdVisitor {
            type Value = WireId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an id (a number or a non-empty string)")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<WireId, E> {
                Ok(WireId(n.to_string()))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<WireId, E> {
                Ok(WireId(n.to_string()))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<WireId, E> {
                if s.is_empty() {
                    return Err(E::invalid_value(de::Unexpected::Str(s), &self));
                }
                Ok(WireId(s.to_owned()))
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}

/// An MR/PR number: a whole number from 1 up to `i64::MAX` (platforms count from 1;
/// zero, negative, fractional, larger or quoted numbers are refused here rather than
/// queued to fail at the platform).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireIid(pub i64);

impl<'de> de::Deserialize<'de> for WireIid {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let n = serde_json::Number::deserialize(deserializer)?;
        n.as_i64().filter(|n| *n >= 1).map(WireIid).ok_or_else(|| {
            de::Error::custom(format!(
                "must be a whole number from 1 to {}, not {n}",
                i64::MAX
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Outer {
        inner: Option<Inner>,
    }
    #[derive(Debug, serde::Deserialize)]
    struct Inner {
        id: Option<WireId>,
        iid: Option<WireIid>,
    }

    fn inner(body: &str) -> Result<Inner, InvalidPayload> {
        read::<Outer>(body.as_bytes())?
            .inner
            .ok_or_else(|| InvalidPayload::missing("inner"))
    }

    #[test]
    fn ids_are_numbers_or_non_empty_strings() {
        assert_eq!(
            inner(r#"{"inner":{"id":42}}"#).unwrap().id,
            Some(WireId("42".into()))
        );
        assert_eq!(
            inner(r#"{"inner":{"id":"42"}}"#).unwrap().id,
            Some(WireId("42".into()))
        );
        let empty = inner(r#"{"inner":{"id":""}}"#).unwrap_err();
        assert!(empty.0.starts_with("`inner.id`:"), "{empty}");
        assert!(inner(r#"{"inner":{"id":1.5}}"#).is_err());
    }

    #[test]
    fn mr_numbers_start_at_one_and_are_named_when_wrong() {
        assert_eq!(
            inner(r#"{"inner":{"iid":7}}"#).unwrap().iid,
            Some(WireIid(7))
        );
        for bad in ["0", "-3", "1.5", "9223372036854775808", "1e30", "\"7\""] {
            let err = inner(&format!(r#"{{"inner":{{"iid":{bad}}}}}"#)).unwrap_err();
            assert!(err.0.starts_with("`inner.iid`:"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_body_that_is_not_json_says_so() {
        let err = read::<Outer>(b"{not json").unwrap_err();
        assert!(err.0.starts_with("the body is not JSON"), "{err}");
        assert!(read::<Outer>(b"[1,2]").is_err(), "an array is no event");
    }
}
