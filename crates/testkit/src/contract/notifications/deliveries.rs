//! The delivery history: attempts, unknown ids, filters and pages, counts, stale
//! pending deliveries, cleaning.

use super::{delivery, event, far_ahead};
use crate::contract::Stores;
use chrono::{DateTime, Utc};
use reviewd_domain::PageRequest;
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::notification::{
    Channel, DeliveryCount, DeliveryStatus, HistoryFilter, NotificationRecord, NotificationType,
};
use reviewd_domain::ports::RepoError;
use uuid::Uuid;

pub(super) async fn attempts_are_counted_and_a_delivery_stamped_when_sent(s: &Stores) {
    let n = &s.notifications;
    let new = delivery(Channel::Webhook, NotificationType::ReviewFailed, None);
    let record = n.add_delivery(new.clone()).await.unwrap();
    assert_eq!(
        (
            record.channel,
            record.notification_type,
            record.recipient.as_deref(),
            record.status,
            record.attempts,
            record.sent_at,
            record.error_message.as_deref(),
        ),
        (
            Channel::Webhook,
            NotificationType::ReviewFailed,
            new.recipient.as_deref(),
            DeliveryStatus::Pending,
            0,
            None,
            None
        )
    );
    assert_eq!(n.record(record.id).await.unwrap(), record);

    let finish = async |status, error| {
        n.finish_attempt(record.id, status, error).await.unwrap();
        n.record(record.id).await.unwrap()
    };
    let retrying = finish(DeliveryStatus::Pending, Some("HTTP 503")).await;
    assert_eq!(
        (
            retrying.status,
            retrying.attempts,
            retrying.error_message.as_deref(),
            retrying.sent_at
        ),
        (DeliveryStatus::Pending, 1, Some("HTTP 503"), None)
    );
    let failed = finish(DeliveryStatus::Failed, Some("HTTP 500")).await;
    assert_eq!(
        (failed.status, failed.attempts, failed.sent_at),
        (DeliveryStatus::Failed, 2, None)
    );
    let sent = finish(DeliveryStatus::Sent, None).await;
    assert_eq!(
        (sent.status, sent.attempts, sent.error_message),
        (DeliveryStatus::Sent, 3, None)
    );
    assert!(sent.sent_at.expect("sent_at is set") >= sent.created_at);
    assert_eq!(sent.created_at, record.created_at);
}

pub(super) async fn unknown_ids_are_not_found(s: &Stores) {
    let n = &s.notifications;
    let missing = Uuid::new_v4();
    assert!(matches!(n.record(missing).await, Err(RepoError::NotFound)));
    let finish = n.finish_attempt(missing, DeliveryStatus::Sent, None).await;
    assert!(matches!(finish, Err(RepoError::NotFound)));
    let of_no_review = delivery(
        Channel::Email,
        NotificationType::ReviewCompleted,
        Some(ReviewId::from(missing)),
    );
    assert!(matches!(
        n.add_delivery(of_no_review).await,
        Err(RepoError::NotFound)
    ));
    let event = n
        .add_digest_event(NotificationType::ReviewCompleted, &event(missing.into(), 1))
        .await;
    assert!(matches!(event, Err(RepoError::NotFound)));
}

/// Five deliveries, oldest first, each after one attempt (or none):
/// email/completed/review sent, email/failed/review failed, webhook/completed/review
/// sent, push/rating_low pending, email/daily_summary sent.
async fn five_deliveries(s: &Stores, review: ReviewId) -> Vec<NotificationRecord> {
    use reviewd_domain::model::notification::{
        Channel as C, DeliveryStatus as S, NotificationType as T,
    };
    let plan = [
        (C::Email, T::ReviewCompleted, Some(review), S::Sent),
        (C::Email, T::ReviewFailed, Some(review), S::Failed),
        (C::Webhook, T::ReviewCompleted, Some(review), S::Sent),
        (C::Push, T::RatingLow, None, S::Pending),
        (C::Email, T::DailySummary, None, S::Sent),
    ];
    let mut records = Vec::new();
    for (channel, kind, review_id, status) in plan {
        let record = s
            .notifications
            .add_delivery(delivery(channel, kind, review_id))
            .await
            .unwrap();
        if status != S::Pending {
            s.notifications
                .finish_attempt(record.id, status, None)
                .await
                .unwrap();
        }
        records.push(record);
    }
    records
}

pub(super) async fn history_is_newest_first_filtered_and_paged(s: &Stores, review: ReviewId) {
    let records = five_deliveries(s, review).await;
    let r: Vec<Uuid> = records.iter().map(|r| r.id).collect();
    let all = PageRequest::new(1, 100, 100);
    // Only this case's records: those created from its first on.
    let mine = HistoryFilter {
        start: Some(records[0].created_at),
        ..Default::default()
    };
    let list = async |filter: HistoryFilter, page: PageRequest| {
        let page = s.notifications.history(&filter, page).await.unwrap();
        (
            page.total,
            page.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        )
    };

    assert_eq!(
        list(mine.clone(), all).await,
        (5, vec![r[4], r[3], r[2], r[1], r[0]])
    );
    // A page keeps the total of the whole filtered set.
    assert_eq!(
        list(mine.clone(), PageRequest::new(2, 2, 100)).await,
        (5, vec![r[2], r[1]])
    );
    assert_eq!(
        list(mine.clone(), PageRequest::new(3, 2, 100)).await,
        (5, vec![r[0]])
    );
    assert_eq!(
        list(mine.clone(), PageRequest::new(4, 2, 100)).await,
        (5, vec![])
    );

    let by = |f: fn(&mut HistoryFilter)| {
        let mut filter = mine.clone();
        f(&mut filter);
        filter
    };
    let email = by(|f| f.channel = Some(Channel::Email));
    assert_eq!(list(email, all).await, (3, vec![r[4], r[1], r[0]]));
    let sent = by(|f| f.status = Some(DeliveryStatus::Sent));
    assert_eq!(list(sent, all).await, (3, vec![r[4], r[2], r[0]]));
    let completed = by(|f| f.notification_type = Some(NotificationType::ReviewCompleted));
    assert_eq!(list(completed, all).await, (2, vec![r[2], r[0]]));
    let of_review = HistoryFilter {
        review_id: Some(review),
        ..mine.clone()
    };
    assert_eq!(
        list(of_review.clone(), all).await,
        (3, vec![r[2], r[1], r[0]])
    );
    let failed_email_of_review = HistoryFilter {
        channel: Some(Channel::Email),
        status: Some(DeliveryStatus::Failed),
        ..of_review
    };
    assert_eq!(list(failed_email_of_review, all).await, (1, vec![r[1]]));

    let window = HistoryFilter {
        start: Some(records[1].created_at),
        end: Some(records[3].created_at),
        ..Default::default()
    };
    assert_eq!(list(window, all).await, (2, vec![r[2], r[1]]));

    let push = s.notifications.record(r[3]).await.unwrap();
    assert_eq!(
        (
            push.channel,
            push.notification_type,
            push.review_id,
            push.status
        ),
        (
            Channel::Push,
            NotificationType::RatingLow,
            None,
            DeliveryStatus::Pending
        )
    );
}

pub(super) async fn stats_count_each_channel_and_status(s: &Stores, review: ReviewId) {
    let r = five_deliveries(s, review).await;
    let count = |channel, status, count| DeliveryCount {
        channel,
        status,
        count,
    };
    let stats = async |start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>| {
        let mut counts = s.notifications.stats(start, end).await.unwrap();
        counts.sort_by_key(|c| (c.channel.as_str(), c.status.as_str()));
        counts
    };
    assert_eq!(
        stats(Some(r[0].created_at), None).await,
        [
            count(Channel::Email, DeliveryStatus::Failed, 1),
            count(Channel::Email, DeliveryStatus::Sent, 2),
            count(Channel::Push, DeliveryStatus::Pending, 1),
            count(Channel::Webhook, DeliveryStatus::Sent, 1),
        ]
    );
    assert_eq!(
        stats(Some(r[0].created_at), Some(r[2].created_at)).await,
        [
            count(Channel::Email, DeliveryStatus::Failed, 1),
            count(Channel::Email, DeliveryStatus::Sent, 1),
        ]
    );
    assert!(stats(Some(far_ahead()), None).await.is_empty());
    let everything = stats(None, None).await;
    let total: i64 = everything.iter().map(|c| c.count).sum();
    assert!(total >= 5, "{everything:?}");
}

pub(super) async fn stale_pending_deliveries_are_taken_once_oldest_first(s: &Stores) {
    let n = &s.notifications;
    let add = async || {
        let new = delivery(Channel::Email, NotificationType::ReviewCompleted, None);
        (n.add_delivery(new.clone()).await.unwrap(), new.payload)
    };
    let (oldest, oldest_payload) = add().await;
    let (retrying, retrying_payload) = add().await;
    n.finish_attempt(retrying.id, DeliveryStatus::Pending, Some("HTTP 503"))
        .await
        .unwrap();
    let (sent, _) = add().await;
    n.finish_attempt(sent.id, DeliveryStatus::Sent, None)
        .await
        .unwrap();
    // Untouched since before this one was made: the first two (the third is sent).
    let (cutoff, _) = add().await;
    let before = cutoff.created_at;

    let mut taken = n.take_stale_pending(before, 1).await.unwrap();
    assert_eq!(taken.len(), 1, "at most the limit");
    taken.extend(n.take_stale_pending(before, 100).await.unwrap());
    assert!(
        taken
            .windows(2)
            .all(|w| w[0].0.created_at <= w[1].0.created_at),
        "oldest first"
    );
    let mine: Vec<_> = taken
        .into_iter()
        .filter(|(r, _)| [oldest.id, retrying.id, sent.id, cutoff.id].contains(&r.id))
        .map(|(r, payload)| (r.id, r.attempts, r.status, payload))
        .collect();
    assert_eq!(
        mine,
        [
            (oldest.id, 0, DeliveryStatus::Pending, oldest_payload),
            (retrying.id, 1, DeliveryStatus::Pending, retrying_payload),
        ]
    );
    // Taking touched them: they are not stale any more.
    assert!(n.take_stale_pending(before, 100).await.unwrap().is_empty());
}

pub(super) async fn clean_deletes_the_records_created_before_the_cutoff(s: &Stores) {
    let n = &s.notifications;
    let mut records = Vec::new();
    for _ in 0..3 {
        let new = delivery(Channel::Email, NotificationType::ReviewCompleted, None);
        records.push(n.add_delivery(new).await.unwrap());
    }
    // Older cases' records first, so the counts below are this case's alone.
    n.clean(records[0].created_at).await.unwrap();
    assert_eq!(n.clean(records[2].created_at).await.unwrap(), 2);
    assert_eq!(n.clean(records[2].created_at).await.unwrap(), 0);
    for gone in &records[..2] {
        assert!(matches!(n.record(gone.id).await, Err(RepoError::NotFound)));
    }
    let left = n
        .history(&HistoryFilter::default(), PageRequest::new(1, 10, 100))
        .await
        .unwrap();
    assert_eq!(
        (
            left.total,
            left.items.iter().map(|r| r.id).collect::<Vec<_>>()
        ),
        (1, vec![records[2].id])
    );
}
