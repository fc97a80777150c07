//! Reading a repository for the reviewer's context on GitLab's wire: the tree
//! paged with its query parameters (files only), a blob's raw bytes, the archive
//! of a commit and its download budget.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::model::{AuthType, PlatformConnection, PlatformType, SecretString};
use reviewd_domain::ports::{ArchiveLimits, HostingPlatform, PlatformError, ProjectRef};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_gitlab::GitlabPlatform;
use serde_json::json;
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const SHA: &str = "da1560886d4f094c3e6c9ef40349f7d38b5d27d7";

fn platform(server: &MockServer) -> GitlabPlatform {
    let connection = PlatformConnection {
        platform_type: PlatformType::Gitlab,
        base_url: format!("{}/", server.uri()),
        auth_type: AuthType::Token,
        token: SecretString::new("tok"),
        app: None,
    };
    GitlabPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection)
}

fn project() -> ProjectRef {
    ProjectRef {
        id: "42".into(),
        full_path: "group/app".into(),
    }
}

#[tokio::test]
async fn the_tree_is_read_page_by_page_with_files_only() {
    let server = MockServer::start().await;
    for (page, next, entries) in [
        (
            "1",
            "2",
            json!([
                { "id": "t1", "name": "src", "type": "tree", "path": "src", "mode": "040000" },
                { "id": "b1", "name": "lib.rs", "type": "blob", "path": "src/lib.rs", "mode": "100644" }
            ]),
        ),
        (
            "2",
            "",
            json!([
                { "id": "b2", "name": "link", "type": "blob", "path": "link", "mode": "120000" },
                { "id": "b3", "name": "README.md", "type": "blob", "path": "README.md", "mode": "100644" }
            ]),
        ),
    ] {
        Mock::given(method("GET"))
            .and(path("/api/v4/projects/42/repository/tree"))
            .and(query_param("ref", SHA))
            .and(query_param("recursive", "true"))
            .and(query_param("page", page))
            .and(header("PRIVATE-TOKEN", "tok"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(entries)
                    .insert_header("x-next-page", next),
            )
            .mount(&server)
            .await;
    }
    let tree = platform(&server)
        .repository_tree(&project(), SHA)
        .await
        .unwrap();
    let files: Vec<_> = tree
        .entries
        .iter()
        .map(|e| (e.path.as_str(), e.blob_id.as_str()))
        .collect();
    assert_eq!(files, [("src/lib.rs", "b1"), ("README.md", "b3")]);
    assert!(!tree.truncated);
}

#[tokio::test]
async fn a_blob_and_an_archive_within_the_budget() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/42/repository/blobs/b1/raw"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(b"pub fn a() {}\n".to_vec()))
        .mount(&server)
        .await;
    let files = [("src/lib.rs".to_owned(), "pub fn a() {}\n".to_owned())];
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/42/repository/archive.tar.gz"))
        .and(query_param("sha", SHA))
        .and(header("PRIVATE-TOKEN", "tok"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_bytes(reviewd_testkit::repository::tar_gz("app-da15608", &files)),
        )
        .mount(&server)
        .await;
    let gitlab = platform(&server);
    assert_eq!(
        gitlab.repository_blob(&project(), "b1").await.unwrap(),
        b"pub fn a() {}\n"
    );
    let limits = |download| ArchiveLimits {
        max_total_bytes: 1 << 20,
        max_file_bytes: 1 << 20,
        max_download_bytes: download,
    };
    let archive = gitlab
        .repository_archive(&project(), SHA, limits(1 << 20))
        .await
        .unwrap();
    assert_eq!(archive.files[0].path, "src/lib.rs");
    assert_eq!(
        archive.files[0].blob_id,
        reviewd_testkit::repository::git_blob_id(b"pub fn a() {}\n")
    );
    assert!(matches!(
        gitlab.repository_archive(&project(), SHA, limits(10)).await,
        Err(PlatformError::Rejected(_))
    ));
}
