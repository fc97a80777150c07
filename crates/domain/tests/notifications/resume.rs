//! Deliveries a stopped process left pending are resumed from their next attempt.

use super::*;

/// The clock of a process that stops during its first wait between attempts.
struct StopsAtFirstWait(Arc<reviewd_testkit::fakes::FakeClock>);

#[async_trait::async_trait]
impl Clock for StopsAtFirstWait {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.0.now()
    }

    async fn sleep(&self, _: Duration) {
        std::future::pending::<()>().await;
    }
}

#[tokio::test]
async fn deliveries_left_pending_by_a_stopped_process_are_resumed_from_their_next_attempt() {
    let b = bench(Frequency::Immediate).await;
    let review = finished_review(&b, 90).await;
    b.webhook
        .fail_next(1, NotifyError::Unavailable("timeout".into()));
    let stopping = reviewd_testkit::world::notification_service(
        &b.world,
        vec![b.webhook.clone()],
        Arc::new(StopsAtFirstWait(b.world.clock.clone())),
    );
    tokio::select! {
        biased;
        () = stopping.review_finished(review, ReviewStatus::Completed) => {
            panic!("the process was to stop while waiting")
        }
        () = tokio::task::yield_now() => {}
    }
    let webhook = history(&b)
        .await
        .into_iter()
        .find(|r| r.channel == Channel::Webhook)
        .unwrap();
    assert_eq!(
        (webhook.status, webhook.attempts),
        (DeliveryStatus::Pending, 1)
    );

    assert_eq!(
        b.service
            .resume_interrupted(Duration::from_secs(600))
            .await
            .unwrap(),
        0,
        "a delivery touched within the stale age is not taken"
    );
    b.world.clock.advance(Duration::from_secs(601));
    assert_eq!(
        b.service
            .resume_interrupted(Duration::from_secs(600))
            .await
            .unwrap(),
        1
    );
    let webhook = history(&b)
        .await
        .into_iter()
        .find(|r| r.channel == Channel::Webhook)
        .unwrap();
    assert_eq!(
        (webhook.status, webhook.attempts),
        (DeliveryStatus::Sent, 2)
    );
    assert_eq!(
        b.webhook.sent().len(),
        1,
        "sent once, by the resumed attempt"
    );
}
