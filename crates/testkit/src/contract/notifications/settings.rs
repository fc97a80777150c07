//! The one settings row: seeded defaults, whole saves, patches, out-of-range values.

use crate::contract::Stores;
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::{Frequency, NotificationConfig, NotificationConfigPatch};
use reviewd_domain::ports::RepoError;

/// Every setting away from its default, every secret set (the store tests check
/// that these secrets are not stored in clear).
pub fn full_config() -> NotificationConfig {
    NotificationConfig {
        email_enabled: true,
        smtp_host: Some("smtp.example.com".into()),
        smtp_port: Some(65_535),
        smtp_secure: false,
        smtp_username: Some("mailer".into()),
        smtp_password: Some("smtp-password".into()),
        email_from: Some("reviewd@example.com".into()),
        email_recipients: vec!["a@example.com".into(), "b@example.com".into()],
        webhook_enabled: true,
        webhook_urls: vec!["https://hooks.example.com/x".into()],
        webhook_secret: Some("webhook-secret".into()),
        slack_enabled: true,
        slack_bot_token: Some("chat-a-token".into()),
        slack_channels: vec!["C1".into(), "C2".into()],
        discord_enabled: true,
        discord_webhook_url: Some("https://chat-b.example.com/chat-b-token".into()),
        teams_enabled: true,
        teams_webhook_url: Some("https://chat-c.example.com/chat-c-token".into()),
        feishu_enabled: true,
        feishu_webhook_url: Some("https://chat-d.example.com/chat-d-token".into()),
        feishu_secret: Some("chat-d-secret".into()),
        push_enabled: true,
        vapid_public_key: Some("BPublicKey".into()),
        vapid_private_key: Some("vapid-private".into()),
        vapid_subject: Some("mailto:ops@example.com".into()),
        notify_on_review_completed: false,
        notify_on_review_failed: false,
        notify_on_rating_low: false,
        rating_threshold: 42,
        notification_frequency: Frequency::Weekly,
        updated_at: None,
    }
}

/// `c` without its `updated_at`, which the store sets.
pub fn without_time(mut c: NotificationConfig) -> NotificationConfig {
    assert!(
        c.updated_at.is_some(),
        "the stored settings carry updated_at"
    );
    c.updated_at = None;
    c
}

pub(super) async fn config_starts_as_the_seeded_defaults(s: &Stores) {
    let initial = s.notifications.config().await.unwrap();
    assert_eq!(without_time(initial), NotificationConfig::default());
}

pub(super) async fn a_saved_config_reads_back_whole(s: &Stores) {
    let n = &s.notifications;
    let config = full_config();
    assert_eq!(without_time(n.save_config(&config).await.unwrap()), config);
    assert_eq!(without_time(n.config().await.unwrap()), config);

    let cleared = NotificationConfig {
        smtp_password: None,
        webhook_secret: None,
        slack_bot_token: None,
        discord_webhook_url: None,
        teams_webhook_url: None,
        feishu_webhook_url: None,
        feishu_secret: None,
        vapid_private_key: None,
        smtp_port: None,
        ..config
    };
    assert_eq!(
        without_time(n.save_config(&cleared).await.unwrap()),
        cleared
    );
    assert_eq!(without_time(n.config().await.unwrap()), cleared);
}

pub(super) async fn a_patched_save_keeps_the_other_fields(s: &Stores) {
    let n = &s.notifications;
    let first = n.save_config(&full_config()).await.unwrap();
    let patch = NotificationConfigPatch {
        email_enabled: Some(false),
        smtp_password: Some(Some(SecretString::new("rotated"))),
        feishu_secret: Some(None),
        rating_threshold: Some(90),
        notification_frequency: Some(Frequency::Daily),
        ..Default::default()
    };
    let current = n.config().await.unwrap();
    let saved = n.save_config(&patch.apply(current)).await.unwrap();
    assert!(saved.updated_at >= first.updated_at);
    let expected = NotificationConfig {
        email_enabled: false,
        smtp_password: Some("rotated".into()),
        feishu_secret: None,
        rating_threshold: 90,
        notification_frequency: Frequency::Daily,
        ..full_config()
    };
    assert_eq!(without_time(n.config().await.unwrap()), expected);
}

pub(super) async fn out_of_range_settings_conflict(s: &Stores) {
    let n = &s.notifications;
    let before = n.config().await.unwrap();
    for bad in [
        NotificationConfig {
            smtp_port: Some(0),
            ..full_config()
        },
        NotificationConfig {
            rating_threshold: 101,
            ..full_config()
        },
        NotificationConfig {
            rating_threshold: -1,
            ..full_config()
        },
    ] {
        let refused = n.save_config(&bad).await;
        assert!(
            matches!(refused, Err(RepoError::Conflict(_))),
            "{refused:?}"
        );
    }
    assert_eq!(n.config().await.unwrap(), before);
}
