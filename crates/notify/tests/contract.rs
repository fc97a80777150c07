//! The `Notifier` port contract (`reviewd_testkit::contract::notifier`) against the
//! real HTTP adapters — the outbound webhook, a chat channel (chatB) and Web Push —
//! each receiver a local wiremock server answering as the suite asks.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use async_trait::async_trait;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::Utc;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use reviewd_domain::model::notification::{NotificationConfig, PushSubscription, Recipient};
use reviewd_domain::ports::{Notifier, VapidKeyGenerator};
use reviewd_notify::{DiscordNotifier, P256VapidKeys, WebPushNotifier, WebhookNotifier};
use reviewd_testkit::contract::notifier::{Answer, NotifierWorld, Receiver, Target, run};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// How long the adapters wait for an answer; a "too late" receiver waits longer.
const PATIENCE: Duration = Duration::from_millis(500);

#[derive(Clone, Copy)]
enum Adapter {
    Webhook,
    Discord,
    Push,
}

struct HttpWorld {
    adapter: Adapter,
    notifier: Arc<dyn Notifier>,
    vapid: NotificationConfig,
}

impl HttpWorld {
    fn new(adapter: Adapter) -> Self {
        let http = reviewd_notify::single_attempt_client(PATIENCE).unwrap();
        let notifier: Arc<dyn Notifier> = match adapter {
            Adapter::Webhook => Arc::new(WebhookNotifier::new(http)),
            Adapter::Discord => Arc::new(DiscordNotifier::new(http)),
            Adapter::Push => Arc::new(WebPushNotifier::new(http)),
        };
        let keys = P256VapidKeys.generate().unwrap();
        let vapid = NotificationConfig {
            vapid_public_key: Some(keys.public_key),
            vapid_private_key: Some(keys.private_key),
            ..NotificationConfig::default()
        };
        Self {
            adapter,
            notifier,
            vapid,
        }
    }

    /// How this adapter reaches a receiver at `origin`.
    fn target(&self, origin: &str) -> Target {
        match self.adapter {
            Adapter::Webhook => Target {
                config: NotificationConfig::default(),
                recipient: Recipient::Url(format!("{origin}/hook")),
            },
            Adapter::Discord => Target {
                config: NotificationConfig {
                    discord_webhook_url: Some(format!("{origin}/api/webhooks/1/token").into()),
                    ..NotificationConfig::default()
                },
                recipient: Recipient::Configured,
            },
            Adapter::Push => Target {
                config: self.vapid.clone(),
                recipient: Recipient::Push(subscription(&format!("{origin}/wpush/v2/sub"))),
            },
        }
    }
}

/// A browser's subscription at `endpoint`, with real keys (the adapter encrypts to them).
fn subscription(endpoint: &str) -> PushSubscription {
    let browser = p256::SecretKey::from_slice(&[0x11; 32]).unwrap();
    let public = browser.public_key().to_encoded_point(false);
    PushSubscription {
        id: Uuid::new_v4(),
        user_id: None,
        endpoint: endpoint.into(),
        p256dh: URL_SAFE_NO_PAD.encode(public.as_bytes()),
        auth: URL_SAFE_NO_PAD.encode([0x22; 16]),
        user_agent: None,
        created_at: Utc::now(),
        last_used_at: None,
        expires_at: None,
    }
}

/// A loopback origin nothing listens on (a port bound, then released).
fn closed_origin() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port())
}

struct HttpReceiver {
    server: Option<MockServer>,
    target: Target,
}

#[async_trait]
impl Receiver for HttpReceiver {
    fn target(&self) -> Target {
        self.target.clone()
    }

    async fn received(&self) -> usize {
        match &self.server {
            Some(server) => server.received_requests().await.unwrap().len(),
            None => 0,
        }
    }
}

#[async_trait]
impl NotifierWorld for HttpWorld {
    fn notifier(&self) -> Arc<dyn Notifier> {
        self.notifier.clone()
    }

    async fn receiver(&self, answer: Answer) -> Box<dyn Receiver> {
        let response = match answer {
            Answer::Status(status) => ResponseTemplate::new(status),
            Answer::TooLate => ResponseTemplate::new(200).set_delay(PATIENCE * 10),
            Answer::Absent => {
                return Box::new(HttpReceiver {
                    server: None,
                    target: self.target(&closed_origin()),
                });
            }
        };
        let server = MockServer::start().await;
        Mock::given(any())
            .respond_with(response)
            .mount(&server)
            .await;
        Box::new(HttpReceiver {
            target: self.target(&server.uri()),
            server: Some(server),
        })
    }

    fn unconfigured(&self) -> Target {
        let reachable = self.target(&closed_origin());
        match self.adapter {
            // The webhook's one setting is its URL, which comes as the recipient.
            Adapter::Webhook => Target {
                recipient: Recipient::None,
                ..reachable
            },
            Adapter::Discord | Adapter::Push => Target {
                config: NotificationConfig::default(),
                ..reachable
            },
        }
    }
}

#[tokio::test]
async fn the_webhook_keeps_the_notifier_contract() {
    run(&HttpWorld::new(Adapter::Webhook)).await;
}

#[tokio::test]
async fn discord_keeps_the_notifier_contract() {
    run(&HttpWorld::new(Adapter::Discord)).await;
}

#[tokio::test]
async fn web_push_keeps_the_notifier_contract() {
    run(&HttpWorld::new(Adapter::Push)).await;
}

#[test]
fn p256_vapid_keys_keep_the_key_generator_contract() {
    reviewd_testkit::contract::vapid::run(&P256VapidKeys);
}
