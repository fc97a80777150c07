//! What the people who read a comment made of it, as the contract's feedback
//! records: a 👍 or a resolved thread accepts it, a 👎 or a "won't fix" reply
//! rejects it, and a later round whose diff changes the commented line marks it
//! implemented. Signals that say nothing clear (a 🎉, "let me think") make no
//! record, so that the acceptance rate counts verdicts only.

use crate::model::named_values::text_enum;
use std::collections::BTreeSet;

text_enum!(
    /// A verdict's direction: the comment helped or it did not.
    FeedbackType {
        Positive => "positive",
        Negative => "negative",
    }
);

text_enum!(
    /// Where a comment's feedback stands.
    TrackingStatus {
        Pending => "pending",
        Accepted => "accepted",
        Rejected => "rejected",
        Implemented => "implemented",
    }
);

impl TrackingStatus {
    /// Whether the comment helped: accepted or implemented.
    #[must_use]
    pub fn helped(self) -> bool {
        matches!(self, TrackingStatus::Accepted | TrackingStatus::Implemented)
    }
}

/// What someone did to a posted comment, as the platforms report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal<'a> {
    /// An award emoji (GitLab) or a reaction (GitHub), by its platform name
    /// (`thumbsup`, `+1`, `-1`...) or as the character.
    Reaction(&'a str),
    /// A reply in the comment's thread.
    Reply(&'a str),
    /// The thread was resolved.
    Resolved,
}

/// The record a signal makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub feedback_type: FeedbackType,
    pub status: TrackingStatus,
}

const ACCEPTED: Verdict = Verdict {
    feedback_type: FeedbackType::Positive,
    status: TrackingStatus::Accepted,
};
/// A finding turned down (or conceded wrong by reviewd).
pub const REJECTED: Verdict = Verdict {
    feedback_type: FeedbackType::Negative,
    status: TrackingStatus::Rejected,
};
/// What a later round's change to the commented line makes.
pub const IMPLEMENTED: Verdict = Verdict {
    feedback_type: FeedbackType::Positive,
    status: TrackingStatus::Implemented,
};

/// Replies that turn a comment down, compared on the lowercased reply with
/// typographic apostrophes made plain.
const REJECTING_REPLIES: [&str; 9] = [
    "won't fix",
    "wont fix",
    "wontfix",
    "will not fix",
    "not going to fix",
    "false positive",
    "not a bug",
    "not an issue",
    "works as intended",
];

/// Replies that take a comment up.
const ACCEPTING_REPLIES: [&str; 5] = ["fixed", "done", "good catch", "will fix", "addressed"];

/// The record `signal` makes, or `None` when it says nothing clear.
#[must_use]
pub fn verdict(signal: Signal<'_>) -> Option<Verdict> {
    match signal {
        Signal::Resolved => Some(ACCEPTED),
        Signal::Reaction(name) => match without_skin_tone(name.trim().trim_matches(':')) {
            "thumbsup" | "+1" | "\u{1f44d}" => Some(ACCEPTED),
            "thumbsdown" | "-1" | "\u{1f44e}" => Some(REJECTED),
            _ => None,
        },
        Signal::Reply(body) => {
            let text = body.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
            // A refusal first: "not fixed, won't fix" is a refusal.
            if REJECTING_REPLIES.iter().any(|p| text.contains(p)) {
                Some(REJECTED)
            } else if ACCEPTING_REPLIES
                .iter()
                .any(|p| starts_with_words(&text, p))
            {
                Some(ACCEPTED)
            } else {
                None
            }
        }
    }
}

/// GitLab's emoji name without its skin tone (`thumbsup_tone3` is a thumbs up).
fn without_skin_tone(name: &str) -> &str {
    name.rsplit_once("_tone")
        .filter(|(_, tone)| matches!(*tone, "1" | "2" | "3" | "4" | "5"))
        .map_or(name, |(base, _)| base)
}

/// Whether `text` opens with `phrase` as whole words ("fixed in abc", "done.",
/// not "fixedly" or "it is not fixed").
fn starts_with_words(text: &str, phrase: &str) -> bool {
    text.trim_start()
        .strip_prefix(phrase)
        .is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_alphanumeric()))
}

/// The old-side lines a unified diff removes or replaces: a comment on one of them,
/// made at the diff's base, was acted on by the diff.
#[must_use]
pub fn changed_old_lines(diff: &str) -> BTreeSet<u32> {
    let mut changed = BTreeSet::new();
    let mut next: Option<u32> = None;
    for line in diff.lines() {
        if let Some(start) = old_hunk_start(line) {
            next = Some(start);
            continue;
        }
        let Some(old) = next.as_mut() else { continue };
        match line.as_bytes().first() {
            Some(b'-') => {
                changed.insert(*old);
                *old += 1;
            }
            Some(b' ') | None => *old += 1,
            _ => {} // added lines and "\ No newline" take no old-side line
        }
    }
    changed
}

/// The first old-side line of a hunk header `@@ -a,b +c,d @@`.
fn old_hunk_start(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("@@ -")?;
    let end = rest.find([',', ' '])?;
    rest[..end].parse().ok()
}

/// Share of the comments with a verdict that helped (accepted or implemented);
/// `None` when no comment has one yet.
#[must_use]
pub fn acceptance_rate(helped: u64, judged: u64) -> Option<f64> {
    #[expect(
        clippy::cast_precision_loss,
        reason = "comment counts stay far below 2^52"
    )]
    (judged > 0).then(|| helped as f64 / judged as f64)
}

/// Rejections of one finding (by its fingerprint, or reworded) on one project
/// after which it is not posted there again.
pub const REJECTIONS_TO_SUPPRESS: u64 = 2;

/// The note of the rejection recorded when reviewd agreed in a thread that its
/// finding was wrong: the finding is settled at once, not after two rejections.
pub const CONCESSION_NOTE: &str = "reviewd agreed in the thread that the finding was wrong";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thumbs_and_resolution_are_verdicts_other_emoji_are_not() {
        for up in [
            "thumbsup",
            "+1",
            ":thumbsup:",
            "\u{1f44d}",
            "thumbsup_tone3",
        ] {
            assert_eq!(verdict(Signal::Reaction(up)), Some(ACCEPTED), "{up}");
        }
        for down in ["thumbsdown", "-1", "\u{1f44e}", "thumbsdown_tone5"] {
            assert_eq!(verdict(Signal::Reaction(down)), Some(REJECTED), "{down}");
        }
        for other in [
            "tada",
            "heart",
            "eyes",
            "",
            "thumbsup_tone9",
            "thumbsup_tonex",
        ] {
            assert_eq!(verdict(Signal::Reaction(other)), None, "{other}");
        }
        assert_eq!(verdict(Signal::Resolved), Some(ACCEPTED));
    }

    #[test]
    fn replies_count_when_they_clearly_take_or_turn_down_the_comment() {
        for no in [
            "Won't fix: this is deliberate.",
            "won\u{2019}t fix",
            "WONTFIX",
            "False positive, the value is checked above.",
            "Not fixed. Won't fix.",
        ] {
            assert_eq!(verdict(Signal::Reply(no)), Some(REJECTED), "{no}");
        }
        for yes in ["Fixed in 3f2a1c0", "done.", "Good catch, thanks!", "fixed"] {
            assert_eq!(verdict(Signal::Reply(yes)), Some(ACCEPTED), "{yes}");
        }
        for vague in [
            "Let me think about it",
            "it is not fixed",
            "fixedly wrong",
            "",
            "Why?",
        ] {
            assert_eq!(verdict(Signal::Reply(vague)), None, "{vague}");
        }
    }

    #[test]
    fn old_side_lines_removed_or_replaced_by_a_diff_are_found() {
        // Line 2 replaced, line 5 removed, a line added after 7; 1, 3, 4, 6, 7 kept.
        let diff = "@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n@@ -5,3 +5,3 @@\n-e\n f\n g\n+h\n";
        assert_eq!(
            changed_old_lines(diff).into_iter().collect::<Vec<_>>(),
            vec![2, 5]
        );
        assert!(changed_old_lines("").is_empty());
        assert!(changed_old_lines("@@ -x +1 @@\n-a\n").is_empty());
        let single = "@@ -3 +3 @@\n-old\n+new\n";
        assert_eq!(
            changed_old_lines(single).into_iter().collect::<Vec<_>>(),
            vec![3]
        );
    }

    #[test]
    fn the_rate_counts_verdicts_only() {
        assert_eq!(acceptance_rate(0, 0), None);
        assert_eq!(acceptance_rate(3, 4), Some(0.75));
        assert!(TrackingStatus::Implemented.helped());
        assert!(!TrackingStatus::Rejected.helped());
        for s in ["pending", "accepted", "rejected", "implemented"] {
            assert_eq!(s.parse::<TrackingStatus>().unwrap().as_str(), s);
        }
        assert!("done".parse::<TrackingStatus>().is_err());
        assert_eq!(
            "negative".parse::<FeedbackType>(),
            Ok(FeedbackType::Negative)
        );
    }
}
