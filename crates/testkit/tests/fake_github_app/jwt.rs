//! The App's JWT: it mints tokens and reads the App; others are refused.

use super::*;

#[tokio::test]
async fn a_valid_jwt_mints_a_token_that_lists_the_installation_and_reads_its_pulls() {
    let fake = github().await;

    let (status, minted) = mint(&fake, INSTALLATION, &jwt(), json!({})).await;

    assert_eq!(status, StatusCode::CREATED, "{minted}");
    let token = minted["token"].as_str().unwrap();
    assert!(token.starts_with("ghs_") && token.len() == 40, "{token}");
    assert_eq!(minted["repository_selection"], "all");
    assert_eq!(minted["permissions"]["pull_requests"], "write");
    let expires_at: DateTime<Utc> = minted["expires_at"].as_str().unwrap().parse().unwrap();
    let lifetime = (expires_at - Utc::now()).num_seconds();
    assert!((3590..=3600).contains(&lifetime), "expires in {lifetime} s");
    assert_eq!(fake.mint_count(), 1);

    let (status, listed) = get(&fake, "/installation/repositories", token).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(listed["total_count"], 2);
    assert_eq!(listed["repository_selection"], "all");
    assert_eq!(names(&listed["repositories"]), ["org/api", "org/web"]);

    let (status, pull) = get(&fake, "/repos/org/api/pulls/1", token).await;
    assert_eq!(status, StatusCode::OK, "{pull}");
    assert_eq!(pull["title"], "Add a thing");
    // The personal token still works beside it.
    assert_eq!(
        get(&fake, "/repos/org/api/pulls/1", PAT).await.0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn the_app_and_its_installations_are_read_with_the_jwt() {
    let fake = github().await;
    fake.with_installation(78, "other-org", &["other-org/one"], true);

    let (status, app) = get(&fake, "/app", &jwt()).await;
    assert_eq!(status, StatusCode::OK, "{app}");
    assert_eq!(app["id"], APP_ID);
    assert_eq!(app["slug"], "reviewd-app");
    assert_eq!(app["owner"]["login"], "reviewd");

    let url = "/app/installations?per_page=1";
    let (status, first, headers) = call(&fake, reqwest::Method::GET, url, &jwt(), None).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first[0]["id"], INSTALLATION);
    assert_eq!(first[0]["account"]["login"], "org");
    assert_eq!(first[0]["account"]["type"], "Organization");
    assert_eq!(first[0]["app_id"], APP_ID);
    assert_eq!(first[0]["repository_selection"], "all");
    assert_eq!(first[0]["suspended_at"], Value::Null);
    let link = headers["link"].to_str().unwrap();
    assert!(link.contains("page=2>; rel=\"next\""), "{link}");
    let (_, second) = get(&fake, "/app/installations?per_page=1&page=2", &jwt()).await;
    assert_eq!(second[0]["id"], 78);
    assert_eq!(second[0]["repository_selection"], "selected");
    assert!(second[0]["suspended_at"].is_string());

    let (status, found) = get(&fake, "/repos/org/web/installation", &jwt()).await;
    assert_eq!(
        (status, &found["id"]),
        (StatusCode::OK, &json!(INSTALLATION))
    );
    let (status, _) = get(&fake, "/repos/elsewhere/tool/installation", &jwt()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // An installation token is no JWT.
    let (status, refused) = get(&fake, "/app", &token(&fake).await).await;
    assert_eq!(
        (status, &refused["message"]),
        (StatusCode::UNAUTHORIZED, &json!(UNDECODABLE))
    );
}

#[tokio::test]
async fn jwts_that_are_not_the_apps_or_out_of_date_are_refused() {
    let fake = github().await;
    let other_key = jwt_with(
        FakeGithub::OTHER_PRIVATE_KEY,
        &json!({ "iss": APP_ID, "iat": now() - 60, "exp": now() + 540 }),
    );
    let expired = jwt_with(
        FakeGithub::APP_PRIVATE_KEY,
        &json!({ "iss": APP_ID, "iat": now() - 700, "exp": now() - 100 }),
    );
    let other_app = jwt_with(
        FakeGithub::APP_PRIVATE_KEY,
        &json!({ "iss": APP_ID + 1, "iat": now() - 60, "exp": now() + 540 }),
    );
    let too_long = jwt_with(
        FakeGithub::APP_PRIVATE_KEY,
        &json!({ "iss": APP_ID, "iat": now() - 60, "exp": now() + 900 }),
    );

    for (jwt, message) in [
        (other_key.as_str(), UNDECODABLE),
        (other_app.as_str(), UNDECODABLE),
        ("not.a.jwt", UNDECODABLE),
        (PAT, UNDECODABLE),
        (
            expired.as_str(),
            "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
        ),
        (
            too_long.as_str(),
            "'Expiration time' claim ('exp') is too far in the future",
        ),
    ] {
        let (status, body) = mint(&fake, INSTALLATION, jwt, json!({})).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
        assert_eq!(body["message"], message);
    }
    assert_eq!(fake.mint_count(), 0);

    // `iss` as a string is taken too.
    let text_issuer = jwt_with(
        FakeGithub::APP_PRIVATE_KEY,
        &json!({ "iss": APP_ID.to_string(), "iat": now() - 60, "exp": now() + 540 }),
    );
    let (status, _) = mint(&fake, INSTALLATION, &text_issuer, json!({})).await;
    assert_eq!(status, StatusCode::CREATED);
}
