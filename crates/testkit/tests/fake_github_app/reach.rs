//! Which repositories a token reaches.

use super::*;

#[tokio::test]
async fn a_token_narrowed_to_one_repository_reads_only_that_one() {
    let fake = github().await;
    let body = json!({ "repositories": ["api"], "permissions": { "contents": "read" } });

    let (status, minted) = mint(&fake, INSTALLATION, &jwt(), body).await;

    assert_eq!(status, StatusCode::CREATED, "{minted}");
    assert_eq!(minted["repository_selection"], "selected");
    assert_eq!(
        minted["permissions"],
        json!({ "contents": "read", "metadata": "read" })
    );
    assert_eq!(names(&minted["repositories"]), ["org/api"]);
    // octocrab reads them as its `models::Repository`, which needs `id`, `name` and `url`.
    assert!(minted["repositories"][0]["url"].is_string(), "{minted}");
    let recorded = &fake.mints()[0];
    assert_eq!(recorded.installation_id, INSTALLATION);
    assert_eq!(recorded.repositories, Some(vec!["org/api".to_owned()]));
    assert_eq!(recorded.permissions["contents"], "read");

    let token = minted["token"].as_str().unwrap();
    assert_eq!(
        get(&fake, "/repos/org/api/pulls/1", token).await.0,
        StatusCode::OK
    );
    let (status, body) = get(&fake, "/repos/org/web/pulls/1", token).await;
    assert_eq!(
        (status, &body["message"]),
        (StatusCode::NOT_FOUND, &json!("Not Found"))
    );
    let (_, listed) = get(&fake, "/installation/repositories", token).await;
    assert_eq!(names(&listed["repositories"]), ["org/api"]);
    // Read-only: GitHub refuses writes.
    let (status, body, _) = call(
        &fake,
        reqwest::Method::POST,
        "/repos/org/api/issues/1/comments",
        token,
        Some(json!({ "body": "hi" })),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["message"], "Resource not accessible by integration");
}

#[tokio::test]
async fn an_installation_token_reaches_only_its_installations_repositories() {
    let fake = github().await;
    let token = token(&fake).await;

    let (status, _) = get(&fake, "/repos/elsewhere/tool/pulls/1", &token).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        get(&fake, "/repos/elsewhere/tool/pulls/1", PAT).await.0,
        StatusCode::OK
    );
    // Installation tokens act for no user.
    let (status, body) = get(&fake, "/user", &token).await;
    assert_eq!(
        (status, &body["message"]),
        (
            StatusCode::FORBIDDEN,
            &json!("Resource not accessible by integration")
        )
    );
    // GraphQL hides what the token does not reach.
    let query = json!({
        "query": "query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { reviewThreads(first: 100) { nodes { isResolved } } } } }",
        "variables": { "owner": "elsewhere", "name": "tool", "number": 1 },
    });
    let answer: Value = reqwest::Client::new()
        .post(format!("{}/api/graphql", fake.base_url()))
        .bearer_auth(&token)
        .json(&query)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["errors"][0]["type"], "NOT_FOUND", "{answer}");

    let asked = json!({ "repositories": ["tool"] });
    let (status, body) = mint(&fake, INSTALLATION, &jwt(), asked).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let asked = json!({ "permissions": { "administration": "write" } });
    let (status, _) = mint(&fake, INSTALLATION, &jwt(), asked).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn a_selected_installation_reaches_the_chosen_repositories_by_name_or_id() {
    let fake = github().await;
    let web_id = get(&fake, "/repos/org/web", PAT).await.1["id"].to_string();
    fake.with_installation(INSTALLATION, "org", &["org/api"], false);
    fake.with_installation(79, "org", &[web_id.as_str()], false);

    let token = token(&fake).await;
    let (_, listed) = get(&fake, "/installation/repositories", &token).await;
    assert_eq!(
        (&listed["total_count"], names(&listed["repositories"])),
        (&json!(1), vec!["org/api"])
    );
    assert_eq!(listed["repository_selection"], "selected");
    assert_eq!(
        get(&fake, "/repos/org/web", &token).await.0,
        StatusCode::NOT_FOUND
    );

    let (status, minted) = mint(
        &fake,
        79,
        &jwt(),
        json!({ "repository_ids": [web_id.parse::<u64>().unwrap()] }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{minted}");
    let by_id = minted["token"].as_str().unwrap();
    assert_eq!(get(&fake, "/repos/org/web", by_id).await.0, StatusCode::OK);
    assert_eq!(
        fake.mints()[1].repositories,
        Some(vec!["org/web".to_owned()])
    );
}
