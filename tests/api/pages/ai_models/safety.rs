//! What the page never does: send a stored key elsewhere, or let a non-admin change a model.

use super::*;

#[tokio::test]
async fn the_test_form_never_sends_a_stored_key_to_an_address_typed_in_it() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let own = models_server(KEY).await;
    let elsewhere = models_server("whatever").await;
    let endpoint = format!("{}/v1", own.uri());
    let id = create(&root, config("A", &endpoint, KEY, "model-b")).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let other = format!("{}/v1", elsewhere.uri());
    let mut typed = fields("A", &other, "");
    typed.push(("id", &id));
    let r = post_form(&app, &root, "/ai-configs/test", &typed).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(r.text().await.unwrap().contains("type the key again"));
    assert!(
        elsewhere.received_requests().await.unwrap().is_empty(),
        "the key left"
    );
    // Against its own address, the stored key stands behind the empty field.
    let mut typed = fields("A", &endpoint, "");
    typed.push(("id", &id));
    let r = post_form(&app, &root, "/ai-configs/test", &typed).await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(
        html.contains("The model answers: reachable, key accepted (model model-b"),
        "{html}"
    );
    assert!(!html.contains(KEY));
    // A new configuration's settings, with a wrong key: the page says so (200, not an error page).
    let r = post_form(
        &app,
        &root,
        "/ai-configs/test",
        &fields("New", &endpoint, "sk-wrong"),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(html.contains("The test failed:"), "{html}");
    assert!(!html.contains("sk-wrong"), "the typed key is sent back");
}

#[tokio::test]
async fn viewers_and_developers_see_the_models_without_controls_and_are_refused_every_change() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let id = create(&root, config("A", "https://a.example.com/v1", KEY, "m")).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for role in ["viewer", "developer"] {
        let user = app.user_with_role(role).await;
        let list = page(&user, "/ai-configs").await;
        assert!(
            list.contains("data-config=\"A\"") && list.contains("***"),
            "{role}"
        );
        assert!(
            list.contains("href=\"/ai-configs\""),
            "no link in the navigation"
        );
        for control in ["add-ai-config", "/delete", "/default", "/test", "Edit</a>"] {
            assert!(!list.contains(control), "{role} is offered {control}");
        }
        for path in ["/ai-configs/new".to_owned(), format!("/ai-configs/{id}")] {
            assert_eq!(
                user.get(&path).await.status(),
                StatusCode::FORBIDDEN,
                "{role} {path}"
            );
        }
        let form = fields("X", "https://x.example.com/v1", "sk-x");
        for path in [
            "/ai-configs/new".to_owned(),
            "/ai-configs/test".to_owned(),
            format!("/ai-configs/{id}"),
            format!("/ai-configs/{id}/default"),
            format!("/ai-configs/{id}/test"),
            format!("/ai-configs/{id}/delete"),
        ] {
            let r = post_form(&app, &user, &path, &form).await;
            assert_eq!(r.status(), StatusCode::FORBIDDEN, "{role} {path}");
        }
    }
    let stored = listed(&root).await;
    assert_eq!(stored.len(), 1);
    assert_eq!(
        (&stored[0]["name"], &stored[0]["isDefault"]),
        (&json!("A"), &json!(false))
    );
    // A maintainer holds `config:*`: the page offers the controls.
    let maintainer = app.user_with_role("maintainer").await;
    assert!(
        page(&maintainer, "/ai-configs")
            .await
            .contains("id=\"add-ai-config\"")
    );
}
