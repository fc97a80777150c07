//! What a notification says: titles, bodies and digests.

use crate::model::BudgetStop;
use crate::model::notification::{
    DigestSummary, Frequency, Notification, NotificationType, ReviewEvent,
};
use chrono::{DateTime, Utc};

/// Most events listed by name in a digest.
pub(super) const DIGEST_LIST: usize = 5;

pub(super) fn mr_label(e: &ReviewEvent) -> String {
    format!("{} !{} \"{}\"", e.project_name, e.mr_iid, e.mr_title)
}

/// The message of a review event.
#[must_use]
pub fn render_review(kind: NotificationType, e: &ReviewEvent, now: DateTime<Utc>) -> Notification {
    let grade = match (&e.rating, e.score) {
        (Some(r), Some(s)) => format!("rating {r} ({s}/100)"),
        (Some(r), None) => format!("rating {r}"),
        _ => "no rating".to_owned(),
    };
    let (title, text) = match kind {
        NotificationType::ReviewFailed => (
            format!("Review failed: {}", mr_label(e)),
            format!(
                "The review of {} failed: {}",
                mr_label(e),
                e.error_message.as_deref().unwrap_or("no reason recorded")
            ),
        ),
        NotificationType::RatingLow => (
            format!("Low rating: {}", mr_label(e)),
            format!(
                "{} was reviewed with {grade}, below the threshold; {} comment(s).",
                mr_label(e),
                e.comment_count
            ),
        ),
        _ => (
            format!("Review completed: {}", mr_label(e)),
            format!(
                "{} was reviewed: {grade}, {} comment(s){}.",
                mr_label(e),
                e.comment_count,
                e.author
                    .as_deref()
                    .map(|a| format!(", author {a}"))
                    .unwrap_or_default()
            ),
        ),
    };
    Notification {
        kind,
        title,
        text,
        url: Some(e.mr_url.clone()).filter(|u| !u.is_empty()),
        review: Some(e.clone()),
        digest: None,
        created_at: now,
    }
}

/// The message of a project whose monthly budget stopped its automatic reviews.
/// It goes out as `review_failed` (the contract's types are a closed list): an
/// automatic review that should have run did not.
#[must_use]
pub fn render_budget(stop: &BudgetStop, now: DateTime<Utc>) -> Notification {
    Notification {
        kind: NotificationType::ReviewFailed,
        title: format!("AI budget spent: {}", stop.project_name),
        text: format!(
            "The monthly AI budget of {} is spent ({}). Automatic reviews are paused until {} \
             or until the budget is raised; manual reviews still run. First stopped: {}.",
            stop.project_name,
            stop.spent_of_budget(),
            stop.month.next_first_day,
            stop.mr_ref()
        ),
        url: Some(stop.project_url.clone()).filter(|u| !u.is_empty()),
        review: None,
        digest: None,
        created_at: now,
    }
}

/// Counts and the notable reviews of a digest period.
#[must_use]
pub fn summarise(
    events: &[(NotificationType, ReviewEvent, DateTime<Utc>)],
    now: DateTime<Utc>,
) -> DigestSummary {
    let count = |k: NotificationType| events.iter().filter(|(t, _, _)| *t == k).count() as u64;
    let mut lowest: Vec<ReviewEvent> = events
        .iter()
        .filter(|(t, e, _)| *t == NotificationType::ReviewCompleted && e.score.is_some())
        .map(|(_, e, _)| e.clone())
        .collect();
    lowest.sort_by_key(|e| e.score);
    lowest.truncate(DIGEST_LIST);
    let failures: Vec<ReviewEvent> = events
        .iter()
        .filter(|(t, _, _)| *t == NotificationType::ReviewFailed)
        .map(|(_, e, _)| e.clone())
        .take(DIGEST_LIST)
        .collect();
    DigestSummary {
        from: events.first().map_or(now, |(_, _, at)| *at),
        to: now,
        reviews_completed: count(NotificationType::ReviewCompleted),
        reviews_failed: count(NotificationType::ReviewFailed),
        low_ratings: count(NotificationType::RatingLow),
        lowest,
        failures,
    }
}

/// The message of a digest.
#[must_use]
pub fn render_digest(frequency: Frequency, d: &DigestSummary, now: DateTime<Utc>) -> Notification {
    let (kind, label) = if frequency == Frequency::Weekly {
        (NotificationType::WeeklySummary, "Weekly")
    } else {
        (NotificationType::DailySummary, "Daily")
    };
    let mut text = format!(
        "{} review(s) completed, {} failed, {} below the rating threshold.",
        d.reviews_completed, d.reviews_failed, d.low_ratings
    );
    if !d.lowest.is_empty() {
        text.push_str("\nLowest ratings:");
        for e in &d.lowest {
            text.push_str(&format!(
                "\n- {}: {} ({}/100)",
                mr_label(e),
                e.rating.as_deref().unwrap_or("?"),
                e.score.unwrap_or(0)
            ));
        }
    }
    if !d.failures.is_empty() {
        text.push_str("\nFailed:");
        for e in &d.failures {
            text.push_str(&format!(
                "\n- {}: {}",
                mr_label(e),
                e.error_message.as_deref().unwrap_or("no reason recorded")
            ));
        }
    }
    Notification {
        kind,
        title: format!("{label} review summary"),
        text,
        url: None,
        review: None,
        digest: Some(d.clone()),
        created_at: now,
    }
}
