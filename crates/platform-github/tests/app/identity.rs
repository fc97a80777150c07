//! Who the App is, and the projects of its installations.

use super::*;

#[tokio::test]
async fn the_app_is_who_the_config_acts_as() {
    let (fake, _) = github().await;

    let identity = app(&fake).token_identity().await.unwrap();

    assert_eq!(identity.username, "reviewd-app");
    assert_eq!(identity.user_id, APP_ID.to_string());
    assert_eq!(identity.name.as_deref(), Some("Reviewd App"));
    assert_eq!(identity.scopes, None);
    assert_eq!(fake.mint_count(), 0, "the App's own calls need no token");
}

#[tokio::test]
async fn projects_of_every_installation_not_suspended_each_once() {
    let (fake, _) = github().await;
    for repo in ["other-org/one", "shared/one", "shared/two"] {
        fake.add_project(&ProjectFixture::new(repo)).await;
    }
    fake.with_installation(78, "other-org", &[], true);
    fake.with_installation(79, "shared", &["shared/one"], false);
    // `org/api` again, through a second installation.
    fake.with_installation(80, "org", &["org/api"], false);

    let projects = app(&fake).list_projects().await.unwrap();

    assert_eq!(full_paths(&projects), ["org/api", "org/web", "shared/one"]);
    let minted: Vec<u64> = fake.mints().iter().map(|m| m.installation_id).collect();
    assert_eq!(minted, [INSTALLATION, 79, 80], "none for the suspended one");

    // A config limited to one installation lists that one's only.
    let only = platform_with(&connection(&fake, FakeGithub::APP_PRIVATE_KEY, Some(79)));
    let before = fake.requests().await.len();
    let projects = only.list_projects().await.unwrap();
    assert_eq!(full_paths(&projects), ["shared/one"]);
    let listed_installations = fake.requests().await[before..]
        .iter()
        .any(|r| r.url.path() == "/api/v3/app/installations");
    assert!(!listed_installations);
}

/// One installation failing (suspended or removed since GitHub listed it) does
/// not keep the others' repositories from being listed; every one failing does.
#[tokio::test]
async fn a_failing_installation_is_skipped_and_the_others_listed() {
    let (fake, _) = github().await;
    fake.add_project(&ProjectFixture::new("shared/one")).await;
    fake.with_installation(79, "shared", &[], false);
    let suspended = "This installation has been suspended";
    let refuse = |id: u64, status: u16, message: &'static str| {
        let route = format!("^/api/v3/app/installations/{id}/access_tokens$");
        let fake = &fake;
        async move { fake.fail("POST", &route, status, message, 1).await }
    };

    refuse(INSTALLATION, 403, suspended).await;
    let projects = app(&fake).list_projects().await.unwrap();
    assert_eq!(full_paths(&projects), ["shared/one"]);

    refuse(INSTALLATION, 403, suspended).await;
    refuse(79, 404, "Not Found").await;
    let err = app(&fake).list_projects().await.unwrap_err();
    assert_eq!(
        err,
        PlatformError::Forbidden(suspended.into()),
        "the first failure"
    );

    // A config limited to the failing installation fails.
    refuse(79, 404, "Not Found").await;
    let only = platform_with(&connection(&fake, FakeGithub::APP_PRIVATE_KEY, Some(79)));
    let err = only.list_projects().await.unwrap_err();
    assert!(matches!(err, PlatformError::NotFound(_)), "{err:?}");
}
