//! A finished review on every enabled channel; retries with backoff, refusals, low scores.

use super::*;

#[tokio::test]
async fn a_finished_review_reaches_every_enabled_channel_and_is_recorded() {
    let b = bench(Frequency::Immediate).await;
    let review = finished_review(&b, 90).await;
    b.service
        .review_finished(review, ReviewStatus::Completed)
        .await;

    assert_eq!(b.webhook.sent().len(), 1);
    assert_eq!(b.chat.sent().len(), 1);
    let (_, sent) = &b.webhook.sent()[0];
    assert_eq!(sent.kind, NotificationType::ReviewCompleted);
    let records = history(&b).await;
    assert_eq!(records.len(), 2);
    assert!(
        records
            .iter()
            .all(|r| r.status == DeliveryStatus::Sent && r.attempts == 1)
    );
}

#[tokio::test]
async fn a_failing_channel_is_retried_with_backoff_on_the_clock_then_given_up() {
    let b = bench(Frequency::Immediate).await;
    b.webhook
        .fail_next(5, NotifyError::Unavailable("503 from the receiver".into()));
    let review = finished_review(&b, 90).await;
    b.service
        .review_finished(review, ReviewStatus::Completed)
        .await;

    assert_eq!(b.webhook.attempts().len(), 3, "bounded by max_attempts");
    assert_eq!(
        b.world.clock.slept(),
        vec![Duration::from_secs(2), Duration::from_secs(4)],
        "waits double between attempts, spent on the fake clock"
    );
    let records = history(&b).await;
    let webhook = records
        .iter()
        .find(|r| r.channel == Channel::Webhook)
        .unwrap();
    assert_eq!(
        (webhook.status, webhook.attempts),
        (DeliveryStatus::Failed, 3)
    );
    assert!(
        webhook
            .error_message
            .as_deref()
            .unwrap_or("")
            .contains("503")
    );
    let chat = records
        .iter()
        .find(|r| r.channel == Channel::Discord)
        .unwrap();
    assert_eq!(
        chat.status,
        DeliveryStatus::Sent,
        "one channel's failure does not stop another"
    );
}

#[tokio::test]
async fn a_refusal_is_not_retried() {
    let b = bench(Frequency::Immediate).await;
    b.webhook
        .fail_next(1, NotifyError::Rejected("400 bad payload".into()));
    let review = finished_review(&b, 90).await;
    b.service
        .review_finished(review, ReviewStatus::Completed)
        .await;
    assert_eq!(b.webhook.attempts().len(), 1);
    assert!(b.world.clock.slept().is_empty());
}

#[tokio::test]
async fn a_low_score_also_sends_a_rating_low_notification() {
    let b = bench(Frequency::Immediate).await;
    let review = finished_review(&b, 40).await;
    b.service
        .review_finished(review, ReviewStatus::Completed)
        .await;
    let kinds: Vec<_> = b.webhook.sent().iter().map(|(_, n)| n.kind).collect();
    assert!(kinds.contains(&NotificationType::ReviewCompleted));
    assert!(kinds.contains(&NotificationType::RatingLow), "{kinds:?}");
}
