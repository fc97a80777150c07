//! Which new findings repeat what a project's readers rejected: by fingerprint,
//! or the same finding reworded ([`crate::review::likeness`]).

use crate::ports::RejectedFinding;
use crate::review::feedback::REJECTIONS_TO_SUPPRESS;
use crate::review::likeness::Gist;

/// A project's rejected findings, ready to compare new ones with.
#[derive(Debug, Default)]
pub struct Suppression {
    rejected: Vec<(RejectedFinding, Gist)>,
}

impl Suppression {
    /// Nothing is suppressed (the project turned it off, or nothing was rejected).
    #[must_use]
    pub fn none() -> Suppression {
        Suppression::default()
    }

    #[must_use]
    pub fn new(rejected: Vec<RejectedFinding>) -> Suppression {
        Suppression {
            rejected: rejected
                .into_iter()
                .map(|f| {
                    let gist = Gist::of(&f.file_path, &f.message);
                    (f, gist)
                })
                .collect(),
        }
    }

    /// Whether a new finding is left out: reviewd conceded it in a thread, or
    /// its rejections (under any wording) reach [`REJECTIONS_TO_SUPPRESS`].
    #[must_use]
    pub fn covers(&self, fingerprint: &str, file_path: &str, message: &str) -> bool {
        if self.rejected.is_empty() {
            return false;
        }
        let gist = Gist::of(file_path, message);
        let mut rejections = 0;
        for (finding, theirs) in &self.rejected {
            if finding.fingerprint == fingerprint || theirs.alike(&gist) {
                if finding.conceded {
                    return true;
                }
                rejections += finding.rejections;
            }
        }
        rejections >= REJECTIONS_TO_SUPPRESS
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rejected.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(
        fingerprint: &str,
        message: &str,
        rejections: u64,
        conceded: bool,
    ) -> RejectedFinding {
        RejectedFinding {
            fingerprint: fingerprint.into(),
            file_path: "src/app.rs".into(),
            message: message.into(),
            rejections,
            conceded,
        }
    }

    const SAID: &str = "unwrap() panics when foo fails; return the error instead.";
    const REWORDED: &str = "Calling unwrap() here will panic if foo fails.";

    #[test]
    fn two_rejections_under_any_wording_suppress_it() {
        let once = Suppression::new(vec![rejected("f1", SAID, 1, false)]);
        assert!(
            !once.covers("f2", "src/app.rs", REWORDED),
            "one rejection is not enough"
        );
        let twice = Suppression::new(vec![
            rejected("f1", SAID, 1, false),
            rejected("f3", "If foo fails, the unwrap() call panics.", 1, false),
        ]);
        assert!(twice.covers("f2", "src/app.rs", REWORDED));
        assert!(twice.covers("f1", "src/app.rs", SAID));
        assert!(!twice.covers("f4", "src/app.rs", "The result of unwrap() is discarded."));
        assert!(
            !twice.covers("f5", "src/other.rs", REWORDED),
            "another file"
        );
    }

    #[test]
    fn a_conceded_finding_is_settled_at_once() {
        let conceded = Suppression::new(vec![rejected("f1", SAID, 1, true)]);
        assert!(conceded.covers("f2", "src/app.rs", REWORDED));
        assert!(!Suppression::none().covers("f1", "src/app.rs", SAID));
    }
}
