//! Reading a repository for the reviewer's context on GitHub's wire: the
//! tarball's redirect to `codeload` followed without the token, a tarball past
//! the download budget refused, the recursive tree's files only.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use flate2::Compression;
use flate2::write::GzEncoder;
use reviewd_domain::model::{AuthType, PlatformConnection, PlatformType, SecretString};
use reviewd_domain::ports::{ArchiveLimits, HostingPlatform, PlatformError, ProjectRef};
use reviewd_http::{HttpClient, RetryPolicy};
use reviewd_platform_github::GithubPlatform;
use serde_json::json;
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const SHA: &str = "6dcb09b5b57875f334f61aebed695e2e4193db5e";

fn platform(server: &MockServer) -> GithubPlatform {
    let connection = PlatformConnection {
        platform_type: PlatformType::Github,
        base_url: server.uri(),
        auth_type: AuthType::Token,
        token: SecretString::new("ghp_x"),
        app: None,
    };
    GithubPlatform::new(HttpClient::new(RetryPolicy::fast()).unwrap(), &connection)
}

fn repo() -> ProjectRef {
    ProjectRef {
        id: "1296269".into(),
        full_path: "octocat/Hello-World".into(),
    }
}

fn tarball(files: &[(&str, &str)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
    for (file, content) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(content.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(
                &mut header,
                format!("octocat-Hello-World-6dcb09b/{file}"),
                content.as_bytes(),
            )
            .unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

fn limits(download: u64) -> ArchiveLimits {
    ArchiveLimits {
        max_total_bytes: 1 << 20,
        max_file_bytes: 1 << 20,
        max_download_bytes: download,
    }
}

#[tokio::test]
async fn the_tarball_is_fetched_from_codeload_without_the_token() {
    let api = MockServer::start().await;
    let codeload = MockServer::start().await;
    let signed = format!(
        "{}/octocat/Hello-World/legacy.tar.gz/{SHA}?token=signed",
        codeload.uri()
    );
    Mock::given(method("GET"))
        .and(path(format!(
            "/api/v3/repos/octocat/Hello-World/tarball/{SHA}"
        )))
        .and(header("authorization", "Bearer ghp_x"))
        .respond_with(ResponseTemplate::new(302).insert_header("location", signed.as_str()))
        .mount(&api)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/octocat/Hello-World/legacy.tar.gz/{SHA}")))
        .and(query_param("token", "signed"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_bytes(tarball(&[("src/lib.rs", "pub fn a() {}\n")])),
        )
        .mount(&codeload)
        .await;
    let archive = platform(&api)
        .repository_archive(&repo(), SHA, limits(1 << 20))
        .await
        .unwrap();
    assert_eq!(archive.files.len(), 1);
    assert_eq!(archive.files[0].path, "src/lib.rs");
    let asked = &codeload.received_requests().await.unwrap()[0];
    assert!(
        asked.headers.get("authorization").is_none(),
        "the token stays with the API: codeload's link is signed"
    );

    // A tarball past the budget is refused as it passes it, not held in memory.
    let big = tarball(&[("data.txt", &"x".repeat(200_000))]);
    codeload.reset().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(big))
        .mount(&codeload)
        .await;
    let refused = platform(&api)
        .repository_archive(&repo(), SHA, limits(100))
        .await;
    assert!(
        matches!(refused, Err(PlatformError::Rejected(m)) if m.contains("larger than 100 bytes"))
    );
}

#[tokio::test]
async fn the_tree_lists_files_only_and_says_when_github_cut_it() {
    let api = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(format!(
            "/api/v3/repos/octocat/Hello-World/git/trees/{SHA}"
        )))
        .and(query_param("recursive", "1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "sha": SHA, "truncated": true,
            "tree": [
                { "path": "src", "mode": "040000", "type": "tree", "sha": "t1" },
                { "path": "src/lib.rs", "mode": "100644", "type": "blob", "sha": "b1", "size": 14 },
                { "path": "link", "mode": "120000", "type": "blob", "sha": "b2", "size": 6 },
                { "path": "vendor/dep", "mode": "160000", "type": "commit", "sha": "c1" }
            ]
        })))
        .mount(&api)
        .await;
    let tree = platform(&api).repository_tree(&repo(), SHA).await.unwrap();
    let paths: Vec<_> = tree
        .entries
        .iter()
        .map(|e| (e.path.as_str(), e.blob_id.as_str(), e.size))
        .collect();
    assert_eq!(
        paths,
        [("src/lib.rs", "b1", Some(14))],
        "no directory, symlink or submodule"
    );
    assert!(tree.truncated);
}
