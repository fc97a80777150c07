//! The review's rating: a deterministic score from the comments' severities.
//!
//! score = max(0, 100 − 15·errors − 5·warnings − 1·infos); A ≥ 90, B ≥ 80, C ≥ 70,
//! D ≥ 60, else F. `rating_low` notifications fire when the score is below the
//! configured threshold (70 by default).

pub use crate::model::grade::{Rating, Severity};

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
