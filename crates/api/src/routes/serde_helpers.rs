//! Deserialization helpers for request bodies.

use serde::{Deserialize, Deserializer};
use std::fmt::Display;
use std::str::FromStr;

/// Tells a missing field (`None`) from an explicit `null` (`Some(None)`), for PATCH
/// bodies where `null` means "back to the inherited value".
pub fn double_option<'de, T, D>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// A domain enumeration read from its text (`FromStr`): the domain owns its words
/// (`hostA`, `maintainer`...), the wire only carries them. An unknown word is the
/// body's error, with the domain's message.
pub fn from_text<'de, T, D>(deserializer: D) -> Result<T, D::Error>
where
    T: FromStr,
    T::Err: Display,
    D: Deserializer<'de>,
{
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(serde::de::Error::custom)
}

/// [`from_text`] for an optional field (`null` or absent is `None`); use with
/// `#[serde(default)]`.
pub fn from_optional_text<'de, T, D>(deserializer: D) -> Result<Option<T>, D::Error>
where
    T: FromStr,
    T::Err: Display,
    D: Deserializer<'de>,
{
    Option::<String>::deserialize(deserializer)?
        .map(|text| text.parse().map_err(serde::de::Error::custom))
        .transpose()
}
