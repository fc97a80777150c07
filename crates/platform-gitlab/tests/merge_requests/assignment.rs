//! Assigning by numeric ids.

use super::*;

#[tokio::test]
async fn assigns_by_numeric_ids_and_refuses_others() {
    let server = MockServer::start().await;
    Mock::given(method("PUT"))
        .and(path("/api/v4/projects/42/merge_requests/7"))
        .respond_with(ResponseTemplate::new(200).set_body_json(mr_json()))
        .mount(&server)
        .await;
    let gitlab = platform(&server, AuthType::Token);
    gitlab
        .assign(&project(), 7, &["3".into()], &["12".into(), "13".into()])
        .await
        .unwrap();
    let sent = &server.received_requests().await.unwrap()[0];
    assert_eq!(
        std::str::from_utf8(&sent.body).unwrap(),
        "assignee_ids%5B%5D=3&reviewer_ids%5B%5D=12&reviewer_ids%5B%5D=13",
        "lists as GitLab takes them in a form, even of one id"
    );
    assert_eq!(
        FakeGitlab::params(sent),
        json!({ "assignee_ids": [3], "reviewer_ids": [12, 13] })
    );
    assert!(matches!(
        gitlab.assign(&project(), 7, &["alice".into()], &[]).await,
        Err(PlatformError::Rejected(_))
    ));
}
