//! The token's owner reacts and replies through GitHub's own routes.

use super::*;

#[tokio::test]
async fn the_token_owner_reacts_and_replies_through_githubs_routes() {
    let fake = FakeGithub::start(TOKEN).await;
    let (project, ids) = reviewed(&fake, &[reviewd_comment(2, "00000000000000e5")]).await;
    let api = format!("{}/api/v3/repos/{REPO}", fake.base_url());
    let http = reqwest::Client::new();
    let react = || {
        http.post(format!("{api}/pulls/comments/{}/reactions", ids[0]))
            .bearer_auth(TOKEN)
            .json(&json!({ "content": "rocket" }))
            .send()
    };
    let created = react().await.unwrap();
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    assert_eq!(
        (&created["content"], &created["user"]["login"]),
        (&json!("rocket"), &json!("reviewd-bot"))
    );
    let again = react().await.unwrap();
    assert_eq!(
        again.status(),
        200,
        "a reaction given before is answered again"
    );
    let refused = http
        .post(format!("{api}/pulls/comments/{}/reactions", ids[0]))
        .bearer_auth(TOKEN)
        .json(&json!({ "content": "thumbsup" }))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 422, "GitHub's names only");

    let replied = http
        .post(format!("{api}/pulls/5/comments/{}/replies", ids[0]))
        .bearer_auth(TOKEN)
        .json(&json!({ "body": "Fixed in the next push." }))
        .send()
        .await
        .unwrap();
    assert_eq!(replied.status(), 201);
    let replied: Value = replied.json().await.unwrap();
    assert_eq!(replied["in_reply_to_id"], json!(ids[0]));

    let listed: Value = http
        .get(format!("{api}/pulls/5/comments"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed[0]["reactions"]["total_count"], 1);
    assert_eq!(listed[0]["reactions"]["rocket"], 1);
    assert_eq!(listed[0]["user"]["login"], "reviewd-bot");
    assert!(listed[0].get("in_reply_to_id").is_none());
    assert_eq!(listed[1]["in_reply_to_id"], json!(ids[0]));

    let threads = platform(&fake.base_url())
        .comment_threads(&project, 5)
        .await
        .unwrap();
    assert_eq!(
        threads[0].reactions,
        vec![reaction("rocket", "reviewd-bot")]
    );
    assert_eq!(threads[0].replies[0].username, "reviewd-bot");

    let removed = http
        .delete(format!(
            "{api}/pulls/comments/{}/reactions/{}",
            ids[0], created["id"]
        ))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(removed.status(), 204);
    let threads = platform(&fake.base_url())
        .comment_threads(&project, 5)
        .await
        .unwrap();
    assert!(threads[0].reactions.is_empty());
}
