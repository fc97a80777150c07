//! Installation tokens' lifetime, and installations that get none.

use super::*;

#[tokio::test]
async fn an_expired_installation_token_is_bad_credentials_and_a_new_one_works() {
    let fake = github().await;
    let token = token(&fake).await;
    assert_eq!(get(&fake, "/repos/org/api", &token).await.0, StatusCode::OK);

    fake.expire_all_tokens();

    let (status, body) = get(&fake, "/repos/org/api", &token).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["message"], "Bad credentials");
    let (status, _) = get(&fake, "/installation/repositories", &token).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let unknown = "ghs_0000000000000000000000000000000000000";
    assert_eq!(
        get(&fake, "/repos/org/api", unknown).await.0,
        StatusCode::UNAUTHORIZED
    );

    let fresh = self::token(&fake).await;
    assert_eq!(get(&fake, "/repos/org/api", &fresh).await.0, StatusCode::OK);
    assert_eq!(fake.mint_count(), 2);
}

#[tokio::test]
async fn token_lifetime_follows_the_knob() {
    let fake = github().await;
    fake.token_ttl(std::time::Duration::from_secs(120));

    let (_, minted) = mint(&fake, INSTALLATION, &jwt(), json!({})).await;

    let expires_at: DateTime<Utc> = minted["expires_at"].as_str().unwrap().parse().unwrap();
    let lifetime = (expires_at - Utc::now()).num_seconds();
    assert!((110..=120).contains(&lifetime), "expires in {lifetime} s");
    assert_eq!(
        fake.mints()[0].expires_at.timestamp(),
        expires_at.timestamp()
    );
}

#[tokio::test]
async fn a_suspended_installation_gets_no_token_and_an_unknown_one_is_not_found() {
    let fake = github().await;
    let token = token(&fake).await;
    fake.with_installation(INSTALLATION, "org", &[], true);

    let (status, body) = mint(&fake, INSTALLATION, &jwt(), json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["message"], "This installation has been suspended");
    assert_eq!(
        get(&fake, "/repos/org/api", &token).await.0,
        StatusCode::FORBIDDEN
    );
    let (status, _) = mint(&fake, 999, &jwt(), json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    fake.with_installation(INSTALLATION, "org", &[], false);
    assert_eq!(get(&fake, "/repos/org/api", &token).await.0, StatusCode::OK);
    fake.remove_installation(INSTALLATION);
    assert_eq!(
        get(&fake, "/repos/org/api", &token).await.0,
        StatusCode::UNAUTHORIZED
    );
}
