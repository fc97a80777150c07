//! API keys: valid until revoked, revoked by their owners, created with a future expiry and a name.

use super::*;

#[tokio::test]
async fn api_keys_authenticate_until_revoked_and_only_owners_revoke() {
    let w = world();
    w.auth
        .ensure_root("admin@example.com", "secret-pass")
        .await
        .unwrap();
    let dev = w
        .users
        .create(NewUserInput {
            email: "dev@example.com".into(),
            name: "Dev".into(),
            password: "dev-pass-1".into(),
            role: Role::Developer,
        })
        .await
        .unwrap();
    let dev_session = w
        .auth
        .login(&dev.email, "dev-pass-1", client("10.0.0.6"))
        .await
        .unwrap();
    let dev_principal = w
        .auth
        .authenticate_session(&dev_session.session_token)
        .await
        .unwrap();

    let created = w.keys.create(&dev_principal, "ci", None).await.unwrap();
    assert!(created.secret.starts_with("rvd_"));
    assert!(created.secret.starts_with(&created.key.prefix));
    let via_key = w.auth.authenticate_api_key(&created.secret).await.unwrap();
    assert_eq!(via_key.user.id, dev.id);
    assert_eq!(via_key.api_key_id(), Some(created.key.id));

    let admin_session = w
        .auth
        .login("admin@example.com", "secret-pass", client("10.0.0.7"))
        .await
        .unwrap();
    let admin = w
        .auth
        .authenticate_session(&admin_session.session_token)
        .await
        .unwrap();
    let admin_key = w.keys.create(&admin, "admin", None).await.unwrap();
    assert!(matches!(
        w.keys.revoke(&dev_principal, admin_key.key.id).await,
        Err(ServiceError::NotFound(_))
    ));

    w.keys.revoke(&dev_principal, created.key.id).await.unwrap();
    assert!(matches!(
        w.auth.authenticate_api_key(&created.secret).await,
        Err(ServiceError::Unauthenticated)
    ));
    assert_eq!(
        w.keys
            .list(&dev_principal, PageRequest::new(1, 20, 100))
            .await
            .unwrap()
            .total,
        1
    );
}

#[tokio::test]
async fn key_creation_rejects_past_expiry_and_blank_names() {
    let w = world();
    w.auth
        .ensure_root("admin@example.com", "secret-pass")
        .await
        .unwrap();
    let s = w
        .auth
        .login("admin@example.com", "secret-pass", client("10.0.0.8"))
        .await
        .unwrap();
    let admin = w.auth.authenticate_session(&s.session_token).await.unwrap();
    let past = chrono::Utc::now() - chrono::Duration::minutes(1);
    assert!(matches!(
        w.keys.create(&admin, "old", Some(past)).await,
        Err(ServiceError::Invalid(_))
    ));
    assert!(matches!(
        w.keys.create(&admin, "  ", None).await,
        Err(ServiceError::Invalid(_))
    ));
}
