//! The `NotificationRepository` contract: the one settings row, the delivery
//! history (attempts, stale pending deliveries, filters, pages, counts, cleaning),
//! the digest queue, and browser push subscriptions (owned by users of the store).
//!
//! Times come from the store itself (a record's `created_at`), never from this
//! process's clock, so the cases hold on a store whose clock is not the wall's.
//! Time windows are half-open: `start <= created_at < end`.
//!
//! This module holds the suite's order and the times and records the cases share;
//! each child is one part of the port.

mod deliveries;
mod digest;
mod push;
mod settings;

pub use settings::{full_config, without_time};

use super::{Stores, seed};
use chrono::{DateTime, TimeZone, Utc};
use deliveries::{
    attempts_are_counted_and_a_delivery_stamped_when_sent,
    clean_deletes_the_records_created_before_the_cutoff,
    history_is_newest_first_filtered_and_paged,
    stale_pending_deliveries_are_taken_once_oldest_first, stats_count_each_channel_and_status,
    unknown_ids_are_not_found,
};
use digest::{concurrent_digest_takes_split_the_events, digest_events_are_taken_once_oldest_first};
use push::{a_subscription_of_an_unknown_user_is_refused, push_subscriptions};
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::notification::{Channel, NotificationType, ReviewEvent};
use reviewd_domain::ports::NewDelivery;
use settings::{
    a_patched_save_keeps_the_other_fields, a_saved_config_reads_back_whole,
    config_starts_as_the_seeded_defaults, out_of_range_settings_conflict,
};
use uuid::Uuid;

/// Every case, in order. The first needs a fresh store
/// (the settings as seeded); cleaning deletes every older record, so it comes after
/// the other history cases.
pub async fn run(s: &Stores) {
    config_starts_as_the_seeded_defaults(s).await;
    a_saved_config_reads_back_whole(s).await;
    a_patched_save_keeps_the_other_fields(s).await;
    out_of_range_settings_conflict(s).await;
    let project = seed::project(s).await;
    let review = seed::review(s, &project, 1, "head1").await.id;
    attempts_are_counted_and_a_delivery_stamped_when_sent(s).await;
    unknown_ids_are_not_found(s).await;
    history_is_newest_first_filtered_and_paged(s, review).await;
    stats_count_each_channel_and_status(s, review).await;
    stale_pending_deliveries_are_taken_once_oldest_first(s).await;
    clean_deletes_the_records_created_before_the_cutoff(s).await;
    digest_events_are_taken_once_oldest_first(s, review).await;
    concurrent_digest_takes_split_the_events(s, review).await;
    let owners = [seed::user(s).await.id, seed::user(s).await.id];
    push_subscriptions(s.notifications.as_ref(), owners).await;
    a_subscription_of_an_unknown_user_is_refused(s.notifications.as_ref()).await;
}

fn long_ago() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2000, 1, 1, 0, 0, 0).unwrap()
}

fn far_ahead() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2200, 1, 1, 0, 0, 0).unwrap()
}

fn delivery(channel: Channel, kind: NotificationType, review_id: Option<ReviewId>) -> NewDelivery {
    NewDelivery {
        review_id,
        channel,
        notification_type: kind,
        recipient: Some(format!("{}@example.com", Uuid::new_v4().simple())),
        payload: serde_json::json!({ "title": format!("{kind:?} on {channel:?}") }),
    }
}

fn event(review_id: ReviewId, n: i64) -> ReviewEvent {
    ReviewEvent {
        review_id,
        project_name: "g/p".into(),
        mr_iid: n,
        mr_title: format!("MR {n}"),
        mr_url: format!("https://git.example.com/g/p/-/merge_requests/{n}"),
        author: (n % 2 == 0).then(|| "alice".into()),
        status: if n % 3 == 0 { "failed" } else { "completed" }.into(),
        rating: (n % 2 == 1).then(|| "B".into()),
        score: (n % 2 == 1).then(|| u32::try_from(n).unwrap() * 10),
        comment_count: i32::try_from(n).unwrap(),
        error_message: (n % 3 == 0).then(|| "boom".into()),
    }
}
