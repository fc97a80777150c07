//! A failing channel delays no other; the daily digest sends its events once.

use super::*;

#[tokio::test]
async fn a_failing_channel_delays_no_other_channel_and_no_other_kind() {
    let b = bench(Frequency::Immediate).await;
    // The webhook fails twice for the first kind (backing off 2 s, then 4 s).
    b.webhook
        .fail_next(2, NotifyError::Unavailable("503 from the receiver".into()));
    let review = finished_review(&b, 40).await; // completed and rating-low
    b.service
        .review_finished(review, ReviewStatus::Completed)
        .await;

    let webhook = b.webhook.attempts();
    assert_eq!(
        webhook.len(),
        4,
        "two failures and a success, plus the other kind"
    );
    let last_retry = webhook
        .iter()
        .filter(|a| a.notification.kind == webhook[0].notification.kind)
        .map(|a| a.seq)
        .max()
        .unwrap();
    let chat = b.chat.attempts();
    assert_eq!(chat.len(), 2, "{chat:?}");
    assert!(
        chat.iter().all(|a| a.outcome.is_ok() && a.seq < last_retry),
        "both kinds reached chat while the webhook was still retrying"
    );
    let other_kind = webhook
        .iter()
        .find(|a| a.notification.kind != webhook[0].notification.kind)
        .unwrap();
    assert!(
        other_kind.seq < last_retry,
        "the webhook's other kind did not wait for the first one's retries"
    );
}

#[tokio::test]
async fn a_daily_digest_holds_events_and_sends_them_once() {
    let b = bench(Frequency::Daily).await;
    for score in [90, 80, 95] {
        let review = finished_review(&b, score).await;
        b.service
            .review_finished(review, ReviewStatus::Completed)
            .await;
    }
    assert!(b.webhook.sent().is_empty(), "held for the digest");

    b.world.clock.advance(Duration::from_secs(60));
    assert_eq!(b.service.send_digest(Frequency::Daily).await.unwrap(), 3);
    let sent = b.webhook.sent();
    assert_eq!(sent.len(), 1, "one digest per channel recipient");
    assert!(sent[0].1.digest.is_some());
    assert_eq!(
        b.service.send_digest(Frequency::Daily).await.unwrap(),
        0,
        "events are digested once"
    );
    assert_eq!(
        b.service.send_digest(Frequency::Weekly).await.unwrap(),
        0,
        "a digest of another frequency than the settings' sends nothing"
    );
}
