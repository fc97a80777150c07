//! The merge gate's policy: which findings hold a merge back, and the verdict a
//! finished round posts. The project's settings give the policy; the repository's
//! `.reviewd.yml` (`gate:`) overrides what it names.

use crate::model::gate::GateState;
use crate::model::grade::{Rating, Severity};
use serde::{Deserialize, Serialize};

/// `gate:` of `.reviewd.yml`. The file is read at the MR's head, which the MR's
/// author writes: it may make the gate stricter than the project's policy, never
/// laxer (a pull request cannot turn its own gate green).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RepoGate {
    /// `true` posts the gate where the project does not; `false` is not heard
    /// (the file cannot switch off what the project requires).
    #[serde(default)]
    pub enabled: Option<bool>,
    /// `error` (the default), `warning`, `info`, or `never` (findings alone never
    /// fail the gate).
    #[serde(default)]
    pub fail_on: Option<String>,
    /// A grade, `A` to `F`: a round graded below it fails the gate.
    #[serde(default)]
    pub min_rating: Option<String>,
}

impl RepoGate {
    /// # Errors
    /// The key at fault and what it takes.
    pub fn check(&self) -> Result<(), String> {
        if let Some(fail_on) = &self.fail_on
            && fail_on != "never"
            && fail_on.parse::<Severity>().is_err()
        {
            return Err(format!(
                "gate.failOn: `{fail_on}` is not error, warning, info or never"
            ));
        }
        if let Some(min) = &self.min_rating
            && min.parse::<Rating>().is_err()
        {
            return Err(format!(
                "gate.minRating: `{min}` is not a grade from A to F"
            ));
        }
        Ok(())
    }

    /// `project`'s policy made stricter by what the file names: the lower of the
    /// two severities that fail, the better of the two grades required; a laxer
    /// value (`never`, a lower grade, `enabled: false`) keeps the project's.
    #[must_use]
    pub fn over(&self, project: GatePolicy) -> GatePolicy {
        let file_fails: Option<Severity> = self.fail_on.as_deref().and_then(|s| s.parse().ok());
        let file_grade: Option<Rating> = self.min_rating.as_deref().and_then(|r| r.parse().ok());
        GatePolicy {
            enabled: project.enabled || self.enabled == Some(true),
            fail_on: match (project.fail_on, file_fails) {
                (Some(p), Some(f)) => Some(p.min(f)),
                (p, f) => p.or(f),
            },
            min_rating: match (project.min_rating, file_grade) {
                (Some(p), Some(f)) => Some(if rank(f) < rank(p) { f } else { p }),
                (p, f) => p.or(f),
            },
        }
    }
}

/// When the gate fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GatePolicy {
    /// Whether a status is posted at all.
    pub enabled: bool,
    /// Findings of this severity or graver hold the merge while they stand; `None`:
    /// findings alone never do.
    pub fail_on: Option<Severity>,
    /// A round graded below this fails the gate too.
    pub min_rating: Option<Rating>,
}

impl Default for GatePolicy {
    /// On, failing while an error stands; no grade bar.
    fn default() -> Self {
        Self {
            enabled: true,
            fail_on: Some(Severity::Error),
            min_rating: None,
        }
    }
}

/// The review's findings that still stand: not implemented, not resolved, not
/// conceded by reviewd in their thread, whatever round found them. A reader's 👎
/// does not settle one (anyone may react, the MR's author included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StandingFindings {
    pub errors: u32,
    pub warnings: u32,
    pub infos: u32,
}

impl StandingFindings {
    /// How many stand at `severity` or graver.
    #[must_use]
    pub fn at_least(&self, severity: Severity) -> u32 {
        match severity {
            Severity::Error => self.errors,
            Severity::Warning => self.errors + self.warnings,
            Severity::Info => self.errors + self.warnings + self.infos,
        }
    }

    pub fn add(&mut self, severity: Severity, n: u32) {
        match severity {
            Severity::Error => self.errors += n,
            Severity::Warning => self.warnings += n,
            Severity::Info => self.infos += n,
        }
    }
}

/// A → 0 ... F → 4: a larger rank is a worse grade.
fn rank(r: Rating) -> usize {
    Rating::ALL
        .iter()
        .position(|x| *x == r)
        .unwrap_or(Rating::ALL.len())
}

/// The state and one-line description a round with `standing` findings and
/// `grade` (of `score`/100) posts under `policy`.
#[must_use]
pub fn verdict(
    policy: &GatePolicy,
    standing: StandingFindings,
    grade: Rating,
    score: u32,
) -> (GateState, String) {
    let mut reasons = Vec::new();
    if let Some(severity) = policy.fail_on {
        let n = standing.at_least(severity);
        if n > 0 {
            let (one, many) = match severity {
                Severity::Error => ("error", "errors"),
                Severity::Warning => ("error or warning", "errors or warnings"),
                Severity::Info => ("finding", "findings"),
            };
            reasons.push(if n == 1 {
                format!("1 {one} is open")
            } else {
                format!("{n} {many} are open")
            });
        }
    }
    if let Some(min) = policy.min_rating
        && rank(grade) > rank(min)
    {
        reasons.push(format!("rating {grade} is below {min}"));
    }
    if reasons.is_empty() {
        (
            GateState::Passed,
            format!("rating {grade} ({score}/100): nothing holds the merge"),
        )
    } else {
        (
            GateState::Failed,
            format!("{}; rating {grade} ({score}/100)", reasons.join("; ")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(errors: u32, warnings: u32) -> StandingFindings {
        StandingFindings {
            errors,
            warnings,
            infos: 3,
        }
    }

    #[test]
    fn by_default_an_open_error_fails_and_warnings_do_not() {
        let policy = GatePolicy::default();
        let (state, text) = verdict(&policy, standing(1, 0), Rating::B, 85);
        assert_eq!(state, GateState::Failed);
        assert_eq!(text, "1 error is open; rating B (85/100)");
        let (state, text) = verdict(&policy, standing(0, 4), Rating::C, 70);
        assert_eq!(state, GateState::Passed);
        assert_eq!(text, "rating C (70/100): nothing holds the merge");
    }

    #[test]
    fn the_repositorys_file_makes_the_gate_stricter_never_laxer() {
        let project = GatePolicy {
            min_rating: Some(Rating::C),
            ..GatePolicy::default()
        };
        // Laxer values are not heard: the MR's author writes the file.
        let lax = RepoGate {
            enabled: Some(false),
            fail_on: Some("never".into()),
            min_rating: Some("F".into()),
        };
        assert_eq!(lax.over(project), project);
        // Stricter ones are.
        let strict = RepoGate {
            fail_on: Some("warning".into()),
            min_rating: Some("A".into()),
            ..RepoGate::default()
        };
        assert_eq!(
            strict.over(project),
            GatePolicy {
                enabled: true,
                fail_on: Some(Severity::Warning),
                min_rating: Some(Rating::A)
            }
        );
        let off = GatePolicy {
            enabled: false,
            ..GatePolicy::default()
        };
        let on = RepoGate {
            enabled: Some(true),
            ..RepoGate::default()
        };
        assert!(on.over(off).enabled, "a repository may ask for the gate");
        let bad = RepoGate {
            fail_on: Some("fatal".into()),
            ..RepoGate::default()
        };
        assert!(bad.check().unwrap_err().contains("gate.failOn"));
        let grade = RepoGate {
            min_rating: Some("E".into()),
            ..RepoGate::default()
        };
        assert!(grade.check().unwrap_err().contains("gate.minRating"));
    }

    #[test]
    fn a_stricter_policy_counts_warnings_and_a_grade_bar() {
        let policy = GatePolicy {
            fail_on: Some(Severity::Warning),
            min_rating: Some(Rating::B),
            ..GatePolicy::default()
        };
        let (state, text) = verdict(&policy, standing(0, 2), Rating::C, 70);
        assert_eq!(state, GateState::Failed);
        assert_eq!(
            text,
            "2 errors or warnings are open; rating C is below B; rating C (70/100)"
        );
        let (state, _) = verdict(&policy, standing(0, 0), Rating::B, 85);
        assert_eq!(state, GateState::Passed, "B is not below B");
        let lenient = GatePolicy {
            fail_on: None,
            ..GatePolicy::default()
        };
        assert_eq!(
            verdict(&lenient, standing(5, 5), Rating::F, 10).0,
            GateState::Passed
        );
    }
}
