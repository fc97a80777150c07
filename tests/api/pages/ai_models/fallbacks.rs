//! Fallbacks chosen on the page: the other models offered in order, the choice
//! stored and listed, shown again on the edit form, and a choice no stored model
//! answers to refused beside the field.

use super::*;

#[tokio::test]
async fn fallbacks_are_chosen_from_the_other_models_and_shown_in_order() {
    let app = TestApp::spawn().await;
    let root = app.root().await;
    let endpoint = |name: &str| format!("https://{name}.example.com/v1");
    let small = create(
        &root,
        config("Small <b>model</b>", &endpoint("small"), "sk-s", "model-s"),
    )
    .await;
    let tiny = create(&root, config("Tiny", &endpoint("tiny"), "sk-t", "model-t")).await;
    let (small_id, tiny_id) = (small["id"].as_str().unwrap(), tiny["id"].as_str().unwrap());

    let form = page(&root, "/ai-configs/new").await;
    assert!(form.contains("Fallbacks"), "{form}");
    assert!(
        form.contains("Small &#60;b&#62;model&#60;/b&#62; (model-s)")
            && form.contains("Tiny (model-t)"),
        "the other models are offered, their names as text: {}",
        form.lines()
            .filter(|l| l.contains("Small"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let big_endpoint = endpoint("big");
    let mut chosen = fields("Big", &big_endpoint, KEY);
    chosen.push(("fallback_1", tiny_id));
    chosen.push(("fallback_2", small_id));
    chosen.push(("fallback_3", ""));
    let (status, list) = submit(&root, "/ai-configs/new", &chosen).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert!(
        list.contains(
            "falls back on Tiny (model-t) then Small &#60;b&#62;model&#60;/b&#62; (model-s)"
        ),
        "{list}"
    );
    let big = listed(&root)
        .await
        .into_iter()
        .find(|c| c["name"] == "Big")
        .unwrap();
    assert_eq!(big["fallbackIds"], json!([tiny_id, small_id]));
    let id = big["id"].as_str().unwrap();

    let edit = page(&root, &format!("/ai-configs/{id}")).await;
    assert!(
        edit.contains(&format!("<option value=\"{tiny_id}\" selected>")),
        "the first choice is shown chosen: {edit}"
    );
    assert!(
        !edit.contains("Big (model-b)</option>"),
        "not offered to itself"
    );

    // A value no stored model has: refused beside the field, nothing changed.
    let mut bad = fields("Big", &big_endpoint, "");
    bad.push(("fallback_1", "not-an-id"));
    let (status, shown) = submit(&root, &format!("/ai-configs/{id}"), &bad).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        shown.contains("choose stored AI models from the lists"),
        "{shown}"
    );
    let mut unknown = fields("Big", &big_endpoint, "");
    let stranger = uuid::Uuid::new_v4().to_string();
    unknown.push(("fallback_1", &stranger));
    let (status, shown) = submit(&root, &format!("/ai-configs/{id}"), &unknown).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        shown.contains("choose stored AI models from the lists"),
        "{shown}"
    );
    let again = listed(&root).await;
    let big = again.iter().find(|c| c["name"] == "Big").unwrap();
    assert_eq!(big["fallbackIds"], json!([tiny_id, small_id]));

    // Emptied lists remove them.
    let (status, _) = submit(
        &root,
        &format!("/ai-configs/{id}"),
        &fields("Big", &big_endpoint, ""),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let cleared = listed(&root).await;
    assert_eq!(
        cleared.iter().find(|c| c["name"] == "Big").unwrap()["fallbackIds"],
        json!([])
    );
}
