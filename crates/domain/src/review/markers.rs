//! Hidden markers in what reviewd posts. Each line comment ends with its
//! fingerprint and the summary with its review's id, in an HTML comment that both
//! platforms render as nothing. A round retried after an interrupted attempt (a
//! crash or an outage between posting and recording) reads the MR's comments and
//! skips what is already there, so no retry posts a comment twice.
//!
//! Anyone who can comment on the MR could copy a marker into a comment of theirs;
//! the worst that does is keep one of reviewd's comments from being posted again
//! on a retry.

use crate::model::ReviewId;
use crate::model::diff::ExistingComment;
use std::collections::HashMap;

const COMMENT: &str = "<!-- reviewd:comment:";
const SUMMARY: &str = "<!-- reviewd:summary:";
const ANSWER: &str = "<!-- reviewd:answer:";
const END: &str = " -->";

/// The marker of a line comment with this fingerprint.
#[must_use]
pub fn comment_marker(fingerprint: &str) -> String {
    format!("{COMMENT}{fingerprint}{END}")
}

/// The fingerprint in the marker of one of reviewd's line comments, if `body`
/// is one (the first marker, should someone have quoted another).
#[must_use]
pub fn comment_fingerprint(body: &str) -> Option<&str> {
    values(body, COMMENT).next()
}

/// The marker of a review's summary comment.
#[must_use]
pub fn summary_marker(review_id: ReviewId) -> String {
    format!("{SUMMARY}{review_id}{END}")
}

/// The marker of reviewd's answer to the platform comment `note_id`: an answer
/// retried after a crash between posting and recording finds it, and is not
/// posted twice.
#[must_use]
pub fn answer_marker(note_id: &str) -> String {
    format!("{ANSWER}{note_id}{END}")
}

/// The marker of an answer that concedes the thread's finding was wrong: the
/// feedback read from the thread counts it as the finding rejected (and the
/// resolution reviewd made then as no acceptance).
pub const CONCEDED: &str = "<!-- reviewd:conceded -->";

/// Whether `body` is one of reviewd's answers (or a quote of one).
#[must_use]
pub fn is_answer(body: &str) -> bool {
    values(body, ANSWER).next().is_some()
}

/// The id of the comment that answered `note_id`, when one of `existing` is it.
#[must_use]
pub fn answered<'a>(existing: &'a [ExistingComment], note_id: &str) -> Option<&'a ExistingComment> {
    existing
        .iter()
        .find(|c| values(&c.body, ANSWER).any(|v| v == note_id))
}

/// What an earlier attempt left on the MR.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlreadyPosted {
    /// Line comments by fingerprint, with their thread (hostA discussion) ids.
    pub comments: HashMap<String, Option<String>>,
    /// The id of this review's summary comment, when one is there.
    pub summary: Option<String>,
}

/// The values of every `prefix…END` marker in `body`.
fn values<'a>(body: &'a str, prefix: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    body.match_indices(prefix).filter_map(move |(at, _)| {
        let rest = &body[at + prefix.len()..];
        let value = &rest[..rest.find(END)?];
        // A fingerprint or an id: never spaces or markup.
        (!value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
            .then_some(value)
    })
}

/// Reads the markers of `review_id`'s comments out of the MR's comments.
#[must_use]
pub fn already_posted(existing: &[ExistingComment], review_id: ReviewId) -> AlreadyPosted {
    let mut found = AlreadyPosted::default();
    let summary = review_id.to_string();
    for comment in existing {
        for fingerprint in values(&comment.body, COMMENT) {
            found
                .comments
                .entry(fingerprint.to_owned())
                .or_insert_with(|| comment.thread_id.clone());
        }
        if found.summary.is_none() && values(&comment.body, SUMMARY).any(|v| v == summary) {
            found.summary = Some(comment.id.clone());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn existing(id: &str, thread: Option<&str>, body: &str) -> ExistingComment {
        ExistingComment {
            id: id.into(),
            thread_id: thread.map(str::to_owned),
            body: body.into(),
        }
    }

    #[test]
    fn a_comments_fingerprint_is_read_from_its_marker_only() {
        let body = format!("**error**: x\n\n{}", comment_marker("00ff"));
        assert_eq!(comment_fingerprint(&body), Some("00ff"));
        assert_eq!(comment_fingerprint("won't fix"), None);
        assert_eq!(comment_fingerprint("<!-- reviewd:comment: nope -->"), None);
        assert_eq!(
            comment_fingerprint(&summary_marker(ReviewId(uuid::Uuid::from_u128(1)))),
            None,
            "a summary is not a line comment"
        );
    }

    #[test]
    fn markers_are_found_where_they_were_written_and_nowhere_else() {
        let review = ReviewId(uuid::Uuid::from_u128(7));
        let other = ReviewId(uuid::Uuid::from_u128(8));
        let comments = [
            existing(
                "1",
                Some("d1"),
                &format!("**error**: x\n\n{}", comment_marker("00ff")),
            ),
            existing("2", None, &format!("summary\n{}", summary_marker(other))),
            existing("3", None, &format!("summary\n{}", summary_marker(review))),
            existing("4", None, "a person quoting <!-- reviewd:comment: nope -->"),
            existing("5", Some("d5"), "<!-- reviewd:comment:abc"),
        ];
        let found = already_posted(&comments, review);
        assert_eq!(
            found.comments,
            HashMap::from([("00ff".to_owned(), Some("d1".to_owned()))])
        );
        assert_eq!(
            found.summary.as_deref(),
            Some("3"),
            "this review's, not another's"
        );
        assert_eq!(already_posted(&[], review), AlreadyPosted::default());
    }
}
