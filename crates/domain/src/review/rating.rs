//! The review's rating: a deterministic score from the comments' severities.
//!
//! score = max(0, 100 − 15·errors − 5·warnings − 1·infos); A ≥ 90, B ≥ 80, C ≥ 70,
//! D ≥ 60, else F. `rating_low` notifications fire when the score is below the
//! configured threshold (70 by default).

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

impl fmt::Display for Rating {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rating::A => "A",
            Rating::B => "B",
            Rating::C => "C",
            Rating::D => "D",
            Rating::F => "F",
        })
    }
}

/// The score of a set of comments, 0 to 100.
#[must_use]
pub fn score(severities: impl IntoIterator<Item = Severity>) -> u32 {
    let penalty: u32 = severities.into_iter().map(Severity::penalty).sum();
    100u32.saturating_sub(penalty)
}

#[must_use]
pub fn rating(score: u32) -> Rating {
    match score {
        90.. => Rating::A,
        80..=89 => Rating::B,
        70..=79 => Rating::C,
        60..=69 => Rating::D,
        _ => Rating::F,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_and_bands() {
        assert_eq!(score([]), 100);
        assert_eq!(
            score([Severity::Error, Severity::Warning, Severity::Info]),
            79
        );
        assert_eq!(score([Severity::Error; 10]), 0, "never below zero");
        assert_eq!(
            [
                rating(100),
                rating(90),
                rating(89),
                rating(70),
                rating(60),
                rating(59)
            ],
            [
                Rating::A,
                Rating::A,
                Rating::B,
                Rating::C,
                Rating::D,
                Rating::F
            ]
        );
        assert_eq!(
            rating(score([Severity::Warning, Severity::Warning])).to_string(),
            "A"
        );
    }
}
