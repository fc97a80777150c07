//! Notification fakes: a [`Notifier`] that records what it is asked to send and
//! fails when told to, a [`ReviewObserver`] that records, and VAPID keys without
//! the cryptography.

use async_trait::async_trait;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::{
    Channel, Notification, NotificationConfig, Recipient, VapidKeys,
};
use reviewd_domain::model::review::ReviewStatus;
use reviewd_domain::ports::{Notifier, NotifyError, ReviewObserver, VapidKeyGenerator};
use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// One call of [`Notifier::send`] and how it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct SendAttempt {
    pub recipient: Recipient,
    pub notification: Notification,
    pub outcome: Result<(), NotifyError>,
    /// When it happened relative to every other attempt of any recorder in this
    /// process (a global counter): lets a test tell which channel went first.
    pub seq: u64,
}

/// The order of attempts across every [`RecordingNotifier`].
static ATTEMPT_SEQ: AtomicU64 = AtomicU64::new(0);

#[derive(Default)]
struct Script {
    attempts: Vec<SendAttempt>,
    next_failures: VecDeque<NotifyError>,
    failing_recipients: Vec<(Recipient, NotifyError)>,
}

/// A [`Notifier`] for any channel that delivers nowhere: it records every attempt.
/// Like the real adapters it reports a missing setting of its channel as
/// `NotConfigured` (see [`RecordingNotifier::send`]); any other failure is scripted.
pub struct RecordingNotifier {
    channel: Channel,
    script: Mutex<Script>,
}

impl RecordingNotifier {
    #[must_use]
    pub fn new(channel: Channel) -> Self {
        Self {
            channel,
            script: Mutex::new(Script::default()),
        }
    }

    /// The next `n` deliveries (that reach a receiver) fail with `error`.
    pub fn fail_next(&self, n: usize, error: NotifyError) {
        let mut script = self.script();
        script.next_failures.extend(std::iter::repeat_n(error, n));
    }

    /// Every delivery to `recipient` fails with `error` from now on.
    pub fn fail_for(&self, recipient: Recipient, error: NotifyError) {
        self.script().failing_recipients.push((recipient, error));
    }

    /// Every call to `send`, in order, failures included.
    #[must_use]
    pub fn attempts(&self) -> Vec<SendAttempt> {
        self.script().attempts.clone()
    }

    /// What was delivered, in order.
    #[must_use]
    pub fn sent(&self) -> Vec<(Recipient, Notification)> {
        let script = self.script();
        let delivered = script.attempts.iter().filter(|a| a.outcome.is_ok());
        delivered
            .map(|a| (a.recipient.clone(), a.notification.clone()))
            .collect()
    }

    fn script(&self) -> std::sync::MutexGuard<'_, Script> {
        self.script
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The setting the channel's adapter could not do without, if it is missing:
    /// a recipient of the channel's kind, and what the adapter reads from `config`
    /// to reach it (chatB..chatD go to their configured URL whatever the recipient).
    fn missing(&self, config: &NotificationConfig, to: &Recipient) -> Option<&'static str> {
        let unset = |setting: Option<&SecretString>, what| setting.is_none().then_some(what);
        match (self.channel, to) {
            (Channel::Email, Recipient::Email(_)) => (config.smtp_host.is_none()
                || config.email_from.is_none())
            .then_some("the SMTP host and sender"),
            (Channel::Webhook, Recipient::Url(_)) => None,
            (Channel::Slack, Recipient::ChatChannel(_)) => {
                unset(config.slack_bot_token.as_ref(), "the chatA bot token")
            }
            (Channel::Discord, _) => unset(config.discord_webhook_url.as_ref(), "the chatB URL"),
            (Channel::Teams, _) => unset(config.teams_webhook_url.as_ref(), "the chatC URL"),
            (Channel::Feishu, _) => unset(config.feishu_webhook_url.as_ref(), "the chatD URL"),
            (Channel::Push, Recipient::Push(_)) => {
                unset(config.vapid_private_key.as_ref(), "the VAPID keys")
            }
            _ => Some("a recipient of this channel"),
        }
    }
}

#[async_trait]
impl Notifier for RecordingNotifier {
    fn channel(&self) -> Channel {
        self.channel
    }

    /// `NotConfigured` when a setting is missing; else a failure scripted for the
    /// recipient, else the next scripted failure, else delivered.
    async fn send(
        &self,
        config: &NotificationConfig,
        recipient: &Recipient,
        notification: &Notification,
    ) -> Result<(), NotifyError> {
        let missing = self.missing(config, recipient);
        let mut script = self.script();
        let outcome = match missing {
            Some(what) => Err(NotifyError::NotConfigured(format!("{what} is not set"))),
            None => {
                let for_recipient = script
                    .failing_recipients
                    .iter()
                    .find(|(r, _)| r == recipient);
                match for_recipient.map(|(_, e)| e.clone()) {
                    Some(error) => Err(error),
                    None => script.next_failures.pop_front().map_or(Ok(()), Err),
                }
            }
        };
        script.attempts.push(SendAttempt {
            recipient: recipient.clone(),
            notification: notification.clone(),
            outcome: outcome.clone(),
            seq: ATTEMPT_SEQ.fetch_add(1, Ordering::SeqCst),
        });
        outcome
    }
}

/// A [`ReviewObserver`] that remembers each finished review.
#[derive(Default)]
pub struct RecordingObserver {
    finished: Mutex<Vec<(ReviewId, ReviewStatus)>>,
}

impl RecordingObserver {
    /// The reviews reported finished, in order.
    #[must_use]
    pub fn finished(&self) -> Vec<(ReviewId, ReviewStatus)> {
        self.finished.lock().unwrap().clone()
    }
}

impl ReviewObserver for RecordingObserver {
    fn review_finished(&self, review_id: ReviewId, status: ReviewStatus) {
        self.finished.lock().unwrap().push((review_id, status));
    }
}

/// VAPID key pairs shaped like real ones (base64url without padding: a 65-byte
/// uncompressed point, a 32-byte scalar), different at each call, but not keys
/// anything can sign with.
#[derive(Default)]
pub struct FakeVapidKeys {
    made: AtomicU64,
}

impl VapidKeyGenerator for FakeVapidKeys {
    fn generate(&self) -> Result<VapidKeys, String> {
        let n = self.made.fetch_add(1, Ordering::Relaxed).to_be_bytes();
        let mut public = [0x42_u8; 65];
        public[0] = 0x04;
        public[1..9].copy_from_slice(&n);
        let mut private = [0x24_u8; 32];
        private[..8].copy_from_slice(&n);
        Ok(VapidKeys {
            public_key: URL_SAFE_NO_PAD.encode(public),
            private_key: SecretString::new(URL_SAFE_NO_PAD.encode(private)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    fn notification() -> Notification {
        Notification {
            kind: reviewd_domain::model::notification::NotificationType::ReviewCompleted,
            title: "t".into(),
            text: "x".into(),
            url: None,
            review: None,
            digest: None,
            created_at: Utc::now(),
        }
    }

    #[tokio::test]
    async fn scripted_failures_apply_per_recipient_then_in_turn() {
        let hooks = RecordingNotifier::new(Channel::Webhook);
        let (a, b) = (
            Recipient::Url("https://a.example.com".into()),
            Recipient::Url("https://b.example.com".into()),
        );
        let config = NotificationConfig::default();
        let n = notification();
        hooks.fail_for(a.clone(), NotifyError::Gone(410));
        hooks.fail_next(1, NotifyError::Unavailable("503".into()));
        let outcomes = [
            hooks.send(&config, &a, &n).await,
            hooks.send(&config, &b, &n).await,
            hooks.send(&config, &b, &n).await,
            hooks.send(&config, &a, &n).await,
        ];
        assert_eq!(
            outcomes,
            [
                Err(NotifyError::Gone(410)),
                Err(NotifyError::Unavailable("503".into())),
                Ok(()),
                Err(NotifyError::Gone(410)),
            ]
        );
        assert_eq!(hooks.attempts().len(), 4);
        assert_eq!(hooks.sent(), [(b, n)]);
    }

    #[tokio::test]
    async fn a_missing_setting_is_reported_before_any_script() {
        let chat = RecordingNotifier::new(Channel::Discord);
        chat.fail_next(1, NotifyError::Unavailable("503".into()));
        let unset = chat
            .send(
                &NotificationConfig::default(),
                &Recipient::Configured,
                &notification(),
            )
            .await;
        assert!(matches!(unset, Err(NotifyError::NotConfigured(_))));
        let config = NotificationConfig {
            discord_webhook_url: Some("https://chat.example.com/hook".into()),
            ..NotificationConfig::default()
        };
        let answered = chat
            .send(&config, &Recipient::Configured, &notification())
            .await;
        assert!(matches!(answered, Err(NotifyError::Unavailable(_))));
    }

    #[test]
    fn vapid_keys_differ_and_look_like_p256_keys() {
        let keys = FakeVapidKeys::default();
        let (one, two) = (keys.generate().unwrap(), keys.generate().unwrap());
        assert_ne!(one.public_key, two.public_key);
        assert_ne!(one.private_key, two.private_key);
        assert_eq!(URL_SAFE_NO_PAD.decode(&one.public_key).unwrap().len(), 65);
        assert_eq!(
            URL_SAFE_NO_PAD
                .decode(one.private_key.expose())
                .unwrap()
                .len(),
            32
        );
    }
}
