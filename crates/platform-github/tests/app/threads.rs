//! The App's threads and a pull request reviewed with one installation token.

use super::*;

/// The App's comments show its bot, `{slug}[bot]`: those are the threads that
/// are reviewd's, not a person's thread with a copied marker.
#[tokio::test]
async fn the_apps_threads_are_its_bots_and_a_copied_marker_is_not_one() {
    let (fake, api) = github().await;
    let platform = app(&fake);
    let diff = platform.merge_request_diff(&api, 1).await.unwrap();
    let ours = remark(2);
    platform
        .post_inline_comments(&api, 1, &diff.refs, std::slice::from_ref(&ours))
        .await
        .unwrap();
    platform.post_comment(&api, 1, "A summary.").await.unwrap();
    let posted = fake.review_comments("org/api", 1)[0].0;
    fake.react_as("org/api", posted, "+1", "alice").unwrap();
    let copy = fake.comment_as("org/api", 1, "src/lib.rs", 3, &ours.body, "mallory");
    fake.react_as("org/api", copy, "-1", "mallory").unwrap();
    fake.reply_as("org/api", copy, "Won't fix.", "mallory")
        .unwrap();
    assert!(fake.resolve_as("org/api", copy, Some("mallory")));

    for _ in 0..2 {
        let threads = platform.comment_threads(&api, 1).await.unwrap();
        assert_eq!(threads.len(), 1, "{threads:?}");
        assert_eq!(threads[0].body, ours.body);
        assert_eq!(threads[0].reactions.len(), 1);
        assert_eq!(threads[0].reactions[0].username, "alice");
        assert!(threads[0].replies.is_empty() && threads[0].resolved.is_none());
    }
    let app_reads = fake
        .requests()
        .await
        .iter()
        .filter(|r| r.url.path() == "/api/v3/app")
        .count();
    assert_eq!(app_reads, 1, "the App's slug is read once and kept");

    // As the fake shows them, to anyone: the App's comments are its bot's, a
    // person's their own.
    let client = reqwest::Client::new();
    let list = |route: &str| {
        let request = client
            .get(format!("{}/api/v3/repos/org/api{route}", fake.base_url()))
            .bearer_auth(PAT)
            .send();
        async move {
            request
                .await
                .unwrap()
                .json::<serde_json::Value>()
                .await
                .unwrap()
        }
    };
    let review_comments = list("/pulls/1/comments").await;
    assert_eq!(review_comments[0]["user"]["login"], "reviewd-app[bot]");
    assert_eq!(review_comments[0]["user"]["type"], "Bot");
    assert_eq!(review_comments[1]["user"]["login"], "mallory");
    assert_eq!(review_comments[1]["user"]["type"], "User");
    let general = list("/issues/1/comments").await;
    assert_eq!(general[0]["user"]["login"], "reviewd-app[bot]");
}

#[tokio::test]
async fn a_pull_request_is_read_and_reviewed_with_one_installation_token() {
    let (fake, api) = github().await;
    let platform = app(&fake);

    let diff = platform.merge_request_diff(&api, 1).await.unwrap();
    assert_eq!(diff.files.len(), 1);
    platform
        .post_inline_comments(&api, 1, &diff.refs, &[remark(2), remark(3)])
        .await
        .unwrap();
    let threads = platform.comment_threads(&api, 1).await.unwrap();
    assert_eq!(threads.len(), 2);
    assert!(threads.iter().all(|t| t.resolved.is_none()));
    let listed = platform.list_comments(&api, 1).await.unwrap();
    assert_eq!(listed.len(), 2);

    let posted = fake.posted(&api, 1);
    assert_eq!(posted.len(), 2, "{posted:?}");
    assert!(matches!(&posted[0], Posted::Inline { comment, .. } if comment.line == 2));
    let mints = fake.mints();
    assert_eq!(mints.len(), 1, "one token, kept across the calls");
    assert_eq!(mints[0].installation_id, INSTALLATION);
    assert_eq!(mints[0].repositories, None);
    let used = bearers_on(&fake, "/api/v3/repos/org/api/pulls").await;
    assert!(used.len() >= 4, "{used:?}");
    assert!(used.iter().all(|t| *t == mints[0].token), "{used:?}");
    // GraphQL goes through the installation too.
    assert_eq!(
        bearers_on(&fake, "/api/graphql").await,
        [mints[0].token.clone()]
    );
    // The repository's installation is asked for once.
    let lookups = fake
        .requests()
        .await
        .iter()
        .filter(|r| r.url.path() == "/api/v3/repos/org/api/installation")
        .count();
    assert_eq!(lookups, 1);
}
