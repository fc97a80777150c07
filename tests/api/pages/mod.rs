//! The dashboard over plain HTTP: who gets a page, what hostile text looks like on it,
//! unknown pages, and the assets. This module holds the form helpers the cases
//! share; each child is one topic.

mod access;
mod ai_models;
mod connections;
mod forms;
mod hardening;

use crate::helpers::TestApp;

/// The form token of a signed-in session, as its pages carry it.
async fn form_token(session: &crate::helpers::Session) -> String {
    let html = session.get("/settings").await.text().await.unwrap();
    html.split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap()
        .to_owned()
}

/// Posts a page form as `session` (with its token), without following redirects.
async fn post_form(
    app: &TestApp,
    session: &crate::helpers::Session,
    path: &str,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    let token = form_token(session).await;
    let mut form: Vec<(&str, &str)> = fields.to_vec();
    form.push(("csrf", &token));
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(app.url(path))
        .header("cookie", session.cookie_header(&app.base_url))
        .form(&form)
        .send()
        .await
        .unwrap()
}
