//! A backup restored into an empty database, and the server running on it.

use super::*;

#[tokio::test]
async fn a_backup_restores_into_an_empty_database_and_the_server_runs_on_it() {
    let original = TestApp::spawn().await;
    let gitlab = reviewd_testkit::FakeGitlab::start("glpat-restore").await;
    let config_id = crate::helpers::create_gitlab_config(&original, &gitlab).await;
    let dir = std::env::temp_dir().join(format!("reviewd-restore-{}", uuid::Uuid::new_v4()));
    let backup = reviewd_runtime::backup::run(&original.database_url, &dir, chrono::Utc::now())
        .await
        .unwrap();

    // As docs/operations.md says: an empty database, pg_restore as the app's role.
    let empty = reviewd_testkit::TestDb::empty().await;
    let out = std::process::Command::new("pg_restore")
        .args(["--no-owner", "--clean", "--if-exists", "--dbname"])
        .arg(empty.url())
        .arg(&backup.path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let restored = TestApp {
        base_url: String::new(),
        queue_prefix: format!("reviewd-test:{}:", uuid::Uuid::new_v4().simple()),
        database_url: empty.url().to_owned(),
        _db: Some(empty),
    };
    // The server starts on it (migrations at start find nothing to do) and has it all:
    // the root account, the platform config with its secrets still readable.
    let server = TestApp::spawn_sharing(&restored, &[]).await;
    let root = server.root().await;
    let configs = json(root.get("/api/platform-configs").await, StatusCode::OK).await;
    let config = configs["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == config_id.as_str())
        .unwrap_or_else(|| panic!("{configs}"));
    assert_eq!(config["accessToken"], "***");
    let token = json(
        root.get(&format!("/api/platform-configs/{config_id}/access-token"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        token["data"]["accessToken"], "glpat-restore",
        "the secret decrypts after the restore"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
