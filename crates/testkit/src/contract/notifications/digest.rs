//! The digest queue: events taken once, oldest first, split between concurrent takers.

use super::{delivery, event, far_ahead, long_ago};
use crate::contract::Stores;
use chrono::{DateTime, Utc};
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::notification::{Channel, NotificationType, ReviewEvent};

fn kind_of(n: i64) -> NotificationType {
    match n % 3 {
        0 => NotificationType::ReviewFailed,
        1 => NotificationType::ReviewCompleted,
        _ => NotificationType::RatingLow,
    }
}

/// Now by the store's clock: when a new record of it is made.
async fn store_now(s: &Stores) -> DateTime<Utc> {
    let marker = delivery(Channel::Webhook, NotificationType::DailySummary, None);
    s.notifications
        .add_delivery(marker)
        .await
        .unwrap()
        .created_at
}

type Taken = Vec<(NotificationType, ReviewEvent, DateTime<Utc>)>;

fn without_time_taken(taken: &Taken) -> Vec<(NotificationType, ReviewEvent)> {
    taken.iter().map(|(k, e, _)| (*k, e.clone())).collect()
}

pub(super) async fn digest_events_are_taken_once_oldest_first(s: &Stores, review: ReviewId) {
    let n = &s.notifications;
    n.take_digest_events(far_ahead()).await.unwrap();
    for i in 1..=3 {
        n.add_digest_event(kind_of(i), &event(review, i))
            .await
            .unwrap();
    }
    let until = store_now(s).await;
    n.add_digest_event(kind_of(4), &event(review, 4))
        .await
        .unwrap();

    assert!(n.take_digest_events(long_ago()).await.unwrap().is_empty());
    let taken = n.take_digest_events(until).await.unwrap();
    let expected: Vec<_> = (1..=3).map(|i| (kind_of(i), event(review, i))).collect();
    assert_eq!(without_time_taken(&taken), expected);
    assert!(taken.windows(2).all(|w| w[0].2 < w[1].2), "oldest first");
    assert!(taken.iter().all(|(_, _, at)| *at <= until));

    assert!(
        n.take_digest_events(until).await.unwrap().is_empty(),
        "taken events are not taken again"
    );
    let later = n.take_digest_events(store_now(s).await).await.unwrap();
    assert_eq!(without_time_taken(&later), [(kind_of(4), event(review, 4))]);
}

pub(super) async fn concurrent_digest_takes_split_the_events(s: &Stores, review: ReviewId) {
    let n = &s.notifications;
    for i in 1..=20 {
        n.add_digest_event(kind_of(i), &event(review, i))
            .await
            .unwrap();
    }
    let until = store_now(s).await;
    let (left, right) = tokio::join!(n.take_digest_events(until), n.take_digest_events(until));
    let mrs = |taken: Taken| {
        taken
            .into_iter()
            .map(|(_, e, _)| e.mr_iid)
            .collect::<Vec<_>>()
    };
    let (left, right) = (mrs(left.unwrap()), mrs(right.unwrap()));
    let mut both: Vec<i64> = left.iter().chain(&right).copied().collect();
    both.sort_unstable();
    assert_eq!(
        both,
        (1..=20).collect::<Vec<_>>(),
        "each event taken exactly once"
    );
}
