//! A running task's heartbeat. Every quarter of the lease (`QUEUE_RECLAIM_IDLE_SECS`),
//! on a fixed schedule (a slow beat does not push the next ones back), it renews the
//! attempt's lease in the task store, which is what a runner or another worker reads
//! before taking the task over. The queue message needs less: another worker reclaims it
//! only once it has been idle a whole lease, so it is renewed every second beat (half a
//! lease), and at the next beat after a failed renewal: one failure leaves it idle three
//! quarters of a lease. Two failures in a row can let another worker reclaim the message;
//! that worker finds the attempt still leased (`Busy`) and gives the message back, so
//! nothing runs twice.

use super::crew::Crew;
use reviewd_domain::ports::Delivery;
use std::time::Duration;

/// Beats between two renewals of the queue message.
const BEATS_PER_MESSAGE_RENEWAL: u32 = 2;

impl Crew {
    /// Beats until the caller aborts it when the run ends, or the attempt is no longer
    /// ours. A missed beat is logged, never fatal: the engine checks the attempt is
    /// still ours before it posts anything.
    pub(super) async fn heartbeat(&self, delivery: &Delivery) {
        let period = (self.settings.reclaim_idle / 4).max(Duration::from_millis(250));
        let step = chrono::Duration::from_std(period).unwrap_or(chrono::Duration::MAX);
        let consumer = &self.settings.consumer;
        let mut beats_since_message = 0;
        let mut next = self.clock.now() + step;
        loop {
            let wait = (next - self.clock.now()).to_std().unwrap_or(Duration::ZERO);
            self.clock.sleep(wait).await;
            next += step;
            match self.engine.heartbeat(delivery.task_id, consumer).await {
                Ok(true) => {}
                // Taken over (or finished): the message is the other worker's now,
                // and renewing it would take it back.
                Ok(false) => {
                    tracing::warn!(task.id = %delivery.task_id, "workers.attempt_taken_over");
                    return;
                }
                Err(e) => {
                    tracing::warn!(task.id = %delivery.task_id, error = %e, "workers.attempt_renew_failed");
                }
            }
            beats_since_message += 1;
            if beats_since_message < BEATS_PER_MESSAGE_RENEWAL {
                continue;
            }
            match self
                .queue
                .renew(consumer, std::slice::from_ref(&delivery.id))
                .await
            {
                Ok(()) => beats_since_message = 0,
                Err(e) => {
                    tracing::warn!(task.id = %delivery.task_id, error = %e, "workers.message_renew_failed");
                }
            }
        }
    }
}
