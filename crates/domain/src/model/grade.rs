//! How grave a comment is and what a review is graded: the words the engine, the
//! store and the runner share. The rules that compute a grade are in
//! `review::rating`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub const ALL: [Severity; 3] = [Severity::Info, Severity::Warning, Severity::Error];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Points a comment of this severity costs.
    #[must_use]
    pub fn penalty(self) -> u32 {
        match self {
            Severity::Error => 15,
            Severity::Warning => 5,
            Severity::Info => 1,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Severity {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "info" => Ok(Severity::Info),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            other => Err(format!(
                "unknown severity `{other}` (expected info, warning or error)"
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rating {
    A,
    B,
    C,
    D,
    F,
}

impl Rating {
    pub const ALL: [Self; 5] = [Rating::A, Rating::B, Rating::C, Rating::D, Rating::F];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Rating::A => "A",
            Rating::B => "B",
            Rating::C => "C",
            Rating::D => "D",
            Rating::F => "F",
        }
    }
}

super::named_values::named_values!(Rating, "rating");
