//! Deserialization helpers for request bodies.

use serde::{Deserialize, Deserializer};

/// Tells a missing field (`None`) from an explicit `null` (`Some(None)`), for PATCH
/// bodies where `null` means "back to the inherited value".
pub fn double_option<'de, T, D>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}
