//! Email against the testkit's fake SMTP server: what arrives, login, and how SMTP
//! replies and silence are reported.

use crate::{TEXT, TITLE, URL, notification};
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::{NotificationConfig, NotificationType, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use reviewd_notify::SmtpNotifier;
use reviewd_testkit::FakeSmtp;
use reviewd_testkit::fakes::smtp::{END_OF_DATA, GREETING};
use std::time::{Duration, Instant};

const TO: &str = "dev@example.com";

fn config(smtp: &FakeSmtp) -> NotificationConfig {
    NotificationConfig {
        smtp_host: Some("127.0.0.1".into()),
        smtp_port: Some(smtp.port()),
        smtp_secure: false,
        email_from: Some("reviewd <bot@reviewd.example.com>".into()),
        ..NotificationConfig::default()
    }
}

fn with_login(mut config: NotificationConfig, user: &str, password: &str) -> NotificationConfig {
    config.smtp_username = Some(user.into());
    config.smtp_password = Some(SecretString::new(password));
    config
}

async fn send(notifier: &SmtpNotifier, config: &NotificationConfig) -> Result<(), NotifyError> {
    notifier
        .send(
            config,
            &Recipient::Email(TO.into()),
            &notification(NotificationType::ReviewCompleted),
        )
        .await
}

fn notifier() -> SmtpNotifier {
    SmtpNotifier::new(Duration::from_secs(5))
}

#[tokio::test]
async fn a_message_arrives_with_subject_body_and_link() {
    let smtp = FakeSmtp::start().await;
    send(&notifier(), &config(&smtp)).await.unwrap();

    let messages = smtp.messages().await;
    assert_eq!(messages.len(), 1);
    let mail = &messages[0];
    assert_eq!(mail.from, "bot@reviewd.example.com");
    assert_eq!(mail.recipients, vec![TO.to_owned()]);
    assert_eq!(mail.header("Subject").as_deref(), Some(TITLE));
    assert_eq!(mail.header("To").as_deref(), Some(TO));
    assert_eq!(
        mail.header("From").as_deref(),
        Some("reviewd <bot@reviewd.example.com>")
    );
    assert!(
        mail.header("Content-Type")
            .unwrap()
            .starts_with("text/plain")
    );
    assert_eq!(
        mail.body().replace("\r\n", "\n").trim_end(),
        format!("{TEXT}\n\n{URL}")
    );
    assert_eq!(mail.authenticated_as, None);
    assert!(!smtp.commands().await.iter().any(|c| c.starts_with("AUTH")));
}

#[tokio::test]
async fn credentials_are_used_when_set() {
    let smtp = FakeSmtp::builder()
        .credentials("bot", "s3cret-pw")
        .start()
        .await;
    send(&notifier(), &with_login(config(&smtp), "bot", "s3cret-pw"))
        .await
        .unwrap();
    let messages = smtp.messages().await;
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].authenticated_as.as_deref(), Some("bot"));
}

#[tokio::test]
async fn a_wrong_password_is_rejected_without_showing_it() {
    let smtp = FakeSmtp::builder()
        .credentials("bot", "s3cret-pw")
        .start()
        .await;
    let err = send(&notifier(), &with_login(config(&smtp), "bot", "wr0ng-pw"))
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::Rejected(_)), "{err:?}");
    assert!(err.to_string().contains("535"), "{err}");
    assert!(!err.to_string().contains("wr0ng-pw"), "{err}");
    assert!(smtp.messages().await.is_empty());
}

#[tokio::test]
async fn a_server_that_wants_a_login_refuses_an_anonymous_sender() {
    let smtp = FakeSmtp::builder()
        .credentials("bot", "s3cret-pw")
        .start()
        .await;
    let err = send(&notifier(), &config(&smtp)).await.unwrap_err();
    assert!(matches!(err, NotifyError::Rejected(_)), "{err:?}");
    assert!(err.to_string().contains("530"), "{err}");
}

#[tokio::test]
async fn a_transient_reply_is_unavailable() {
    let smtp = FakeSmtp::builder().reply("RCPT", 451).start().await;
    let err = send(&notifier(), &config(&smtp)).await.unwrap_err();
    assert!(matches!(err, NotifyError::Unavailable(_)), "{err:?}");
    assert!(err.to_string().contains("451"), "{err}");
    assert!(smtp.messages().await.is_empty());
}

#[tokio::test]
async fn a_permanent_reply_is_rejected() {
    for command in ["DATA", END_OF_DATA] {
        let smtp = FakeSmtp::builder().reply(command, 554).start().await;
        let err = send(&notifier(), &config(&smtp)).await.unwrap_err();
        assert!(
            matches!(err, NotifyError::Rejected(_)),
            "{command}: {err:?}"
        );
        assert!(err.to_string().contains("554"), "{err}");
        assert!(smtp.messages().await.is_empty());
    }
}

#[tokio::test]
async fn implicit_tls_against_a_plain_server_fails_quickly() {
    let smtp = FakeSmtp::start().await;
    let mut config = config(&smtp);
    config.smtp_secure = true;
    let started = Instant::now();
    let err = send(&notifier(), &config).await.unwrap_err();
    assert!(matches!(err, NotifyError::Unavailable(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(4), "it hung");
    assert!(smtp.messages().await.is_empty());
}

#[tokio::test]
async fn a_silent_server_times_out() {
    for stall in [GREETING, "MAIL", END_OF_DATA] {
        let smtp = FakeSmtp::builder().stall_on(stall).start().await;
        let started = Instant::now();
        let err = send(
            &SmtpNotifier::new(Duration::from_millis(500)),
            &config(&smtp),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(err, NotifyError::Unavailable(_)),
            "{stall}: {err:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{stall}: waited too long"
        );
    }
}

#[tokio::test]
async fn a_refused_connection_is_unavailable() {
    let config = NotificationConfig {
        smtp_host: Some("127.0.0.1".into()),
        smtp_port: Some(crate::closed_port()),
        smtp_secure: false,
        email_from: Some("bot@reviewd.example.com".into()),
        ..NotificationConfig::default()
    };
    let err = send(&notifier(), &config).await.unwrap_err();
    assert!(matches!(err, NotifyError::Unavailable(_)), "{err:?}");
}

#[tokio::test]
async fn changed_settings_reach_the_new_server() {
    let first = FakeSmtp::start().await;
    let second = FakeSmtp::builder().credentials("bot", "pw").start().await;
    let notifier = notifier();
    send(&notifier, &config(&first)).await.unwrap();
    send(&notifier, &config(&first)).await.unwrap();
    send(&notifier, &with_login(config(&second), "bot", "pw"))
        .await
        .unwrap();
    assert_eq!(first.messages().await.len(), 2);
    let on_second = second.messages().await;
    assert_eq!(on_second.len(), 1);
    assert_eq!(on_second[0].authenticated_as.as_deref(), Some("bot"));
}

#[tokio::test]
async fn missing_settings_are_not_configured() {
    let smtp = FakeSmtp::start().await;
    let mut no_host = config(&smtp);
    no_host.smtp_host = None;
    let mut no_from = config(&smtp);
    no_from.email_from = None;
    let mut half_login = config(&smtp);
    half_login.smtp_username = Some("bot".into());
    for config in [no_host, no_from, half_login] {
        let err = send(&notifier(), &config).await.unwrap_err();
        assert!(matches!(err, NotifyError::NotConfigured(_)), "{err:?}");
    }
    let err = notifier()
        .send(
            &config(&smtp),
            &Recipient::None,
            &notification(NotificationType::ReviewCompleted),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::NotConfigured(_)), "{err:?}");
    let err = notifier()
        .send(
            &config(&smtp),
            &Recipient::Email("not an address".into()),
            &notification(NotificationType::ReviewCompleted),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, NotifyError::Rejected(_)), "{err:?}");
    assert!(smtp.messages().await.is_empty());
    assert_eq!(smtp.connections(), 0);
}
