//! Every secret sealed at rest; a missing settings row reads as the defaults.

use super::*;

type EncColumns = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

async fn enc_columns(pool: &PgPool) -> EncColumns {
    let mut conn = pool.get().await.unwrap();
    notification_configs::table
        .select((
            notification_configs::smtp_password_enc,
            notification_configs::webhook_secret_enc,
            notification_configs::chat_a_bot_token_enc,
            notification_configs::chat_b_webhook_url_enc,
            notification_configs::chat_c_webhook_url_enc,
            notification_configs::chat_d_webhook_url_enc,
            notification_configs::chat_d_secret_enc,
            notification_configs::vapid_private_key_enc,
        ))
        .first(&mut conn)
        .await
        .unwrap()
}

#[tokio::test]
async fn every_secret_is_sealed_at_rest() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let config = full_config();
    notifications.save_config(&config).await.unwrap();

    let enc = enc_columns(&pool).await;
    let stored = [
        (&enc.0, "smtp-password"),
        (&enc.1, "webhook-secret"),
        (&enc.2, "chat-a-token"),
        (&enc.3, "chat-b-token"),
        (&enc.4, "chat-c-token"),
        (&enc.5, "chat-d-token"),
        (&enc.6, "chat-d-secret"),
        (&enc.7, "vapid-private"),
    ];
    for (column, plain) in stored {
        let column = column.as_deref().expect("a sealed value");
        assert!(column.starts_with("v1:"), "{column}");
        assert!(!column.contains(plain), "{plain} stored in clear");
        assert!(!column.contains("example.com"), "{column}");
    }

    // Another key cannot open them: an error, not silently missing secrets.
    let other_key = PgNotificationRepository::new(pool.clone(), SecretBox::from_key(&[9; 32]));
    assert!(matches!(other_key.config().await, Err(RepoError::Other(_))));

    // Clearing every secret stores NULLs.
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
        without_time(notifications.save_config(&cleared).await.unwrap()),
        cleared
    );
    assert_eq!(enc_columns(&pool).await, Default::default());
}

#[tokio::test]
async fn a_missing_config_row_reads_as_the_defaults_and_save_recreates_it() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    execute_sql(&pool, "DELETE FROM notification_configs").await;
    let missing = notifications.config().await.unwrap();
    assert_eq!(missing, NotificationConfig::default());
    let saved = notifications.save_config(&full_config()).await.unwrap();
    assert_eq!(without_time(saved), full_config());
    assert_eq!(
        without_time(notifications.config().await.unwrap()),
        full_config()
    );
}
