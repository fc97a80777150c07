//! A disabled user's sessions and keys are void; root cannot be disabled.

use super::*;

#[tokio::test]
async fn disabling_a_user_voids_their_sessions_and_keys_but_root_cannot_be_disabled() {
    let w = world();
    w.auth
        .ensure_root("admin@example.com", "secret-pass")
        .await
        .unwrap();
    let viewer = w
        .users
        .create(NewUserInput {
            email: "v@example.com".into(),
            name: "V".into(),
            password: "viewer-pass".into(),
            role: Role::Viewer,
        })
        .await
        .unwrap();
    let s = w
        .auth
        .login("v@example.com", "viewer-pass", client("10.0.0.9"))
        .await
        .unwrap();
    let principal = w.auth.authenticate_session(&s.session_token).await.unwrap();
    let key = w.keys.create(&principal, "k", None).await.unwrap();

    w.users
        .update(
            viewer.id,
            UserUpdateInput {
                disabled: Some(true),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(w.auth.authenticate_session(&s.session_token).await.is_err());
    assert!(w.auth.authenticate_api_key(&key.secret).await.is_err());
    assert!(matches!(
        w.auth
            .login("v@example.com", "viewer-pass", client("10.0.0.10"))
            .await,
        Err(ServiceError::InvalidCredentials)
    ));

    let root = w
        .users
        .list(PageRequest::new(1, 20, 100))
        .await
        .unwrap()
        .items
        .into_iter()
        .find(|u| u.is_root)
        .unwrap();
    let demote = UserUpdateInput {
        role: Some(Role::Viewer),
        ..Default::default()
    };
    assert!(matches!(
        w.users.update(root.id, demote).await,
        Err(ServiceError::Forbidden(_))
    ));
}
