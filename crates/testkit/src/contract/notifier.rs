//! The `Notifier` port's contract: how a channel reports what its receiver did with
//! a delivery, which is all the notification service goes by to retry, give up, or
//! drop a push subscription.
//!
//! | the receiver                                           | `send` returns   |
//! |--------------------------------------------------------|------------------|
//! | answers 2xx                                            | `Ok`             |
//! | answers 404 or 410 to a push                           | `Gone(status)`   |
//! | answers 408, 429 or 5xx; answers too late; is not there| `Unavailable`    |
//! | answers any other 4xx                                  | `Rejected`       |
//! | (a setting the channel needs is missing)               | `NotConfigured`  |
//!
//! Each `send` is one attempt: retrying is the caller's job. A [`NotifierWorld`]
//! gives the suite the notifier and receivers that answer as told: a local HTTP
//! server for the real adapters, a script for [`RecordingNotifier`].

use crate::fakes::notifier::{FakeVapidKeys, RecordingNotifier};
use async_trait::async_trait;
use chrono::Utc;
use reviewd_domain::model::notification::{
    Channel, Notification, NotificationConfig, NotificationType, PushSubscription, Recipient,
};
use reviewd_domain::ports::{Notifier, NotifyError, VapidKeyGenerator};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use uuid::Uuid;

/// What a receiver does with the deliveries it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Answers with this HTTP status.
    Status(u16),
    /// Answers only after the notifier has stopped waiting.
    TooLate,
    /// Is not there: the connection is refused.
    Absent,
}

/// The settings and the recipient that make a delivery go somewhere.
#[derive(Debug, Clone)]
pub struct Target {
    pub config: NotificationConfig,
    pub recipient: Recipient,
}

/// A receiver the suite set up.
#[async_trait]
pub trait Receiver: Send + Sync {
    /// How to deliver to it.
    fn target(&self) -> Target;

    /// How many deliveries reached it.
    async fn received(&self) -> usize;
}

/// The notifier under test and the receivers it delivers to.
#[async_trait]
pub trait NotifierWorld: Sync {
    fn notifier(&self) -> Arc<dyn Notifier>;

    /// A new receiver answering every delivery with `answer`.
    async fn receiver(&self, answer: Answer) -> Box<dyn Receiver>;

    /// A target lacking a setting the channel cannot deliver without.
    fn unconfigured(&self) -> Target;
}

/// Every case, in order.
pub async fn run(world: &impl NotifierWorld) {
    a_2xx_answer_is_a_delivery(world).await;
    a_transient_failure_is_unavailable(world).await;
    a_refusal_is_rejected(world).await;
    a_vanished_push_subscription_is_gone(world).await;
    a_late_or_absent_receiver_is_unavailable(world).await;
    a_missing_setting_is_not_configured(world).await;
}

fn notification() -> Notification {
    Notification {
        kind: NotificationType::ReviewCompleted,
        title: "Review completed: Fix login redirect (!42)".into(),
        text: "acme/web !42 scored 91 (A), 3 comments.".into(),
        url: Some("https://reviewd.example.com/reviews/42".into()),
        review: None,
        digest: None,
        created_at: Utc::now(),
    }
}

/// One `send` to a receiver answering `answer`: its result, and how many deliveries
/// the receiver got.
async fn send(world: &impl NotifierWorld, answer: Answer) -> (Result<(), NotifyError>, usize) {
    let receiver = world.receiver(answer).await;
    let Target { config, recipient } = receiver.target();
    let result = world
        .notifier()
        .send(&config, &recipient, &notification())
        .await;
    (result, receiver.received().await)
}

async fn a_2xx_answer_is_a_delivery(world: &impl NotifierWorld) {
    for status in [200, 201, 202, 204] {
        let (result, received) = send(world, Answer::Status(status)).await;
        assert_eq!((result, received), (Ok(()), 1), "HTTP {status}");
    }
}

async fn a_transient_failure_is_unavailable(world: &impl NotifierWorld) {
    for status in [408, 429, 500, 502, 503, 504] {
        let (result, received) = send(world, Answer::Status(status)).await;
        assert!(
            matches!(&result, Err(e @ NotifyError::Unavailable(_)) if e.retryable()),
            "HTTP {status}: {result:?}"
        );
        assert_eq!(
            received, 1,
            "HTTP {status}: one attempt, the caller retries"
        );
    }
}

async fn a_refusal_is_rejected(world: &impl NotifierWorld) {
    let vanished: &[u16] = if world.notifier().channel() == Channel::Push {
        &[]
    } else {
        &[404, 410]
    };
    for &status in [400, 401, 403, 413, 422].iter().chain(vanished) {
        let (result, received) = send(world, Answer::Status(status)).await;
        assert!(
            matches!(&result, Err(e @ NotifyError::Rejected(_)) if !e.retryable()),
            "HTTP {status}: {result:?}"
        );
        assert_eq!(received, 1, "HTTP {status}");
    }
}

async fn a_vanished_push_subscription_is_gone(world: &impl NotifierWorld) {
    if world.notifier().channel() != Channel::Push {
        return;
    }
    for status in [404, 410] {
        let (result, _) = send(world, Answer::Status(status)).await;
        assert_eq!(result, Err(NotifyError::Gone(status)));
        assert!(!NotifyError::Gone(status).retryable());
    }
}

async fn a_late_or_absent_receiver_is_unavailable(world: &impl NotifierWorld) {
    for answer in [Answer::TooLate, Answer::Absent] {
        let (result, _) = send(world, answer).await;
        assert!(
            matches!(&result, Err(NotifyError::Unavailable(_))),
            "{answer:?}: {result:?}"
        );
    }
}

async fn a_missing_setting_is_not_configured(world: &impl NotifierWorld) {
    let Target { config, recipient } = world.unconfigured();
    let result = world
        .notifier()
        .send(&config, &recipient, &notification())
        .await;
    assert!(
        matches!(&result, Err(e @ NotifyError::NotConfigured(_)) if !e.retryable()),
        "{result:?}"
    );
}

/// The world of [`RecordingNotifier`]: receivers are scripted failures (what a real
/// adapter reports for each answer), with every setting of the channel filled in.
pub struct RecordingWorld {
    notifier: Arc<RecordingNotifier>,
    config: NotificationConfig,
    receivers: AtomicUsize,
}

impl RecordingWorld {
    #[must_use]
    pub fn new(channel: Channel) -> Self {
        let keys = FakeVapidKeys::default().generate().unwrap();
        let hook = |n: &str| Some(format!("https://chat.example.com/{n}").into());
        Self {
            notifier: Arc::new(RecordingNotifier::new(channel)),
            config: NotificationConfig {
                smtp_host: Some("smtp.example.com".into()),
                email_from: Some("reviewd@example.com".into()),
                slack_bot_token: Some("xoxb-token".into()),
                discord_webhook_url: hook("b"),
                teams_webhook_url: hook("c"),
                feishu_webhook_url: hook("d"),
                vapid_public_key: Some(keys.public_key),
                vapid_private_key: Some(keys.private_key),
                ..NotificationConfig::default()
            },
            receivers: AtomicUsize::new(0),
        }
    }

    /// A recipient of the channel, different each time where the channel has several.
    fn recipient(&self) -> Recipient {
        let n = self.receivers.fetch_add(1, Ordering::Relaxed);
        match self.notifier.channel() {
            Channel::Email => Recipient::Email(format!("dev{n}@example.com")),
            Channel::Webhook => Recipient::Url(format!("https://hooks.example.com/{n}")),
            Channel::Slack => Recipient::ChatChannel(format!("C{n}")),
            Channel::Discord | Channel::Teams | Channel::Feishu => Recipient::Configured,
            Channel::Push => Recipient::Push(PushSubscription {
                id: Uuid::new_v4(),
                user_id: None,
                endpoint: format!("https://push.example.com/{n}"),
                p256dh: "BPublicKey".into(),
                auth: "auth".into(),
                user_agent: None,
                created_at: Utc::now(),
                last_used_at: None,
                expires_at: None,
            }),
        }
    }

    /// What a real adapter of the channel reports for `answer`.
    fn failure(&self, answer: Answer) -> Option<NotifyError> {
        let push = self.notifier.channel() == Channel::Push;
        match answer {
            Answer::Status(200..=299) => None,
            Answer::Status(s @ (404 | 410)) if push => Some(NotifyError::Gone(s)),
            Answer::Status(s @ (408 | 429 | 500..=599)) => {
                Some(NotifyError::Unavailable(format!("HTTP {s}")))
            }
            Answer::Status(s) => Some(NotifyError::Rejected(format!("HTTP {s}"))),
            Answer::TooLate => Some(NotifyError::Unavailable("no answer in time".into())),
            Answer::Absent => Some(NotifyError::Unavailable("connection refused".into())),
        }
    }
}

struct ScriptedReceiver {
    notifier: Arc<RecordingNotifier>,
    target: Target,
    attempts_before: usize,
}

#[async_trait]
impl Receiver for ScriptedReceiver {
    fn target(&self) -> Target {
        self.target.clone()
    }

    async fn received(&self) -> usize {
        self.notifier.attempts().len() - self.attempts_before
    }
}

#[async_trait]
impl NotifierWorld for RecordingWorld {
    fn notifier(&self) -> Arc<dyn Notifier> {
        self.notifier.clone()
    }

    async fn receiver(&self, answer: Answer) -> Box<dyn Receiver> {
        if let Some(failure) = self.failure(answer) {
            self.notifier.fail_next(1, failure);
        }
        Box::new(ScriptedReceiver {
            notifier: self.notifier.clone(),
            target: Target {
                config: self.config.clone(),
                recipient: self.recipient(),
            },
            attempts_before: self.notifier.attempts().len(),
        })
    }

    fn unconfigured(&self) -> Target {
        Target {
            config: NotificationConfig::default(),
            recipient: Recipient::None,
        }
    }
}
