//! Findings matched to the golden ones: the same file, a line within the
//! tolerance, and (with a judge) the same problem. Each golden finding matches
//! at most one comment.

use crate::case::{Golden, Unwanted};
use crate::judge::Judge;

/// A comment the review posted.
#[derive(Debug, Clone)]
pub struct Found {
    pub file: String,
    pub line: u32,
    pub message: String,
}

/// What matching gave for one case.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Matches {
    /// Golden findings found.
    pub found: usize,
    pub goldens: usize,
    /// Comments made.
    pub comments: usize,
    /// Comments that repeat a finding readers rejected.
    pub unwanted: usize,
}

impl Matches {
    #[must_use]
    pub fn precision(&self) -> Option<f64> {
        (self.comments > 0).then(|| self.found as f64 / self.comments as f64)
    }

    #[must_use]
    pub fn recall(&self) -> Option<f64> {
        (self.goldens > 0).then(|| self.found as f64 / self.goldens as f64)
    }

    #[must_use]
    pub fn f1(&self) -> Option<f64> {
        let (p, r) = (self.precision()?, self.recall()?);
        Some(if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        })
    }

    pub fn add(&mut self, other: Matches) {
        self.found += other.found;
        self.goldens += other.goldens;
        self.comments += other.comments;
        self.unwanted += other.unwanted;
    }
}

fn near(file: &str, line: u32, other_file: &str, other_line: u32, tolerance: u32) -> bool {
    file == other_file && line.abs_diff(other_line) <= tolerance
}

/// Matches `found` against `goldens` (and `unwanted`).
pub async fn score(
    goldens: &[Golden],
    unwanted: &[Unwanted],
    found: &[Found],
    tolerance: u32,
    judge: Option<&Judge>,
) -> Matches {
    let mut taken = vec![false; goldens.len()];
    let mut matched = 0;
    let mut repeated = 0;
    for comment in found {
        let mut hit = false;
        for (i, golden) in goldens.iter().enumerate() {
            if taken[i]
                || !near(
                    &comment.file,
                    comment.line,
                    &golden.file,
                    golden.line,
                    tolerance,
                )
            {
                continue;
            }
            let same = match judge {
                Some(judge) => judge.same(&golden.message, &comment.message).await,
                None => true,
            };
            if same {
                taken[i] = true;
                matched += 1;
                hit = true;
                break;
            }
        }
        if !hit
            && unwanted
                .iter()
                .any(|u| near(&comment.file, comment.line, &u.file, u.line, tolerance))
        {
            repeated += 1;
        }
    }
    Matches {
        found: matched,
        goldens: goldens.len(),
        comments: found.len(),
        unwanted: repeated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden(file: &str, line: u32) -> Golden {
        Golden {
            file: file.into(),
            line,
            severity: None,
            message: "m".into(),
            evidence: vec![],
        }
    }

    fn found(file: &str, line: u32) -> Found {
        Found {
            file: file.into(),
            line,
            message: "m".into(),
        }
    }

    #[tokio::test]
    async fn a_golden_finding_matches_one_comment_near_its_line() {
        let goldens = [golden("a.py", 10), golden("b.py", 4)];
        let unwanted = [Unwanted {
            file: "c.py".into(),
            line: 2,
            message: "rejected".into(),
        }];
        let comments = [
            found("a.py", 12),
            found("a.py", 11),
            found("b.py", 9),
            found("c.py", 2),
        ];
        let m = score(&goldens, &unwanted, &comments, 3, None).await;
        assert_eq!(
            m,
            Matches {
                found: 1,
                goldens: 2,
                comments: 4,
                unwanted: 1
            },
            "the second comment on a.py is a duplicate, b.py:9 is too far"
        );
        assert_eq!(m.precision(), Some(0.25));
        assert_eq!(m.recall(), Some(0.5));
        assert!((m.f1().unwrap() - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(
            Matches::default().precision(),
            None,
            "no comments: no precision"
        );
    }
}
