//! `/settings`: your API keys, the users and their roles (admins), the instance.

use crate::form::{NoFields, PageForm};
use crate::page_error::{PageError, describe};
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chrono::NaiveDate;
use reviewd_domain::PageRequest;
use reviewd_domain::model::{ApiKey, Role, User};
use reviewd_domain::services::{NewUserInput, ServiceError, UserUpdateInput};
use serde::Deserialize;
use uuid::Uuid;

crate::render::pages!(SettingsPage);
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/settings", web::get().to(show))
        .route("/settings/api-keys", web::post().to(create_key))
        .route("/settings/api-keys/{id}/revoke", web::post().to(revoke_key))
        .route("/settings/users", web::post().to(create_user))
        .route("/settings/users/{id}", web::post().to(update_user));
}

const ROLES: [&str; 4] = ["admin", "maintainer", "developer", "viewer"];

#[derive(Template)]
#[template(path = "settings.html")]
struct SettingsPage {
    chrome: Chrome,
    keys: Vec<ApiKey>,
    /// The value of a key just created: shown on this one answer only.
    new_key: Option<String>,
    users: Vec<User>,
    roles: [&'static str; 4],
    app_url: String,
    version: &'static str,
    key_error: Option<String>,
    user_error: Option<String>,
}

async fn settings_page(req: &HttpRequest, viewer: &Viewer) -> Result<SettingsPage, PageError> {
    let state = state(req)?;
    let keys = state
        .api_keys
        .list(&viewer.principal, PageRequest::new(1, 100, 100))
        .await?
        .items;
    let users = if viewer.is_admin() {
        state.users.list(PageRequest::new(1, 200, 200)).await?.items
    } else {
        Vec::new()
    };
    Ok(SettingsPage {
        chrome: Chrome::new(viewer, "settings", "Settings"),
        keys,
        new_key: None,
        users,
        roles: ROLES,
        app_url: state.settings.app_url.clone(),
        version: env!("CARGO_PKG_VERSION"),
        key_error: None,
        user_error: None,
    })
}

async fn show(req: HttpRequest, viewer: Viewer) -> Result<HttpResponse, PageError> {
    render::page(&settings_page(&req, &viewer).await?)
}

#[derive(Deserialize)]
struct KeyForm {
    name: String,
    expires_on: Option<String>,
}

async fn create_key(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<KeyForm>,
) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let f = form.fields;
    let mut page = settings_page(&req, &viewer).await?;
    let expires_at = match f
        .expires_on
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
    {
        None => None,
        Some(day) => match NaiveDate::parse_from_str(day, "%Y-%m-%d") {
            Ok(d) => Some(d.and_time(chrono::NaiveTime::MIN).and_utc()),
            Err(_) => {
                page.key_error = Some("Expires: enter a date like 2027-01-31.".to_owned());
                return render::html(actix_web::http::StatusCode::BAD_REQUEST, &page);
            }
        },
    };
    match state
        .api_keys
        .create(&viewer.principal, &f.name, expires_at)
        .await
    {
        Ok(created) => {
            // Shown on this answer only (not a redirect): it is never stored in clear.
            page.keys.insert(0, created.key);
            page.new_key = Some(created.secret);
            render::page(&page)
        }
        Err(err @ ServiceError::Invalid(_)) => {
            page.key_error = Some(describe(&err));
            render::html(actix_web::http::StatusCode::BAD_REQUEST, &page)
        }
        Err(err) => Err(err.into()),
    }
}

async fn revoke_key(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    _form: PageForm<NoFields>,
) -> Result<HttpResponse, PageError> {
    state(&req)?.api_keys.revoke(&viewer.principal, *id).await?;
    Ok(render::redirect_with(
        "/settings#api-keys",
        "API key revoked.",
    ))
}

#[derive(Deserialize)]
struct NewUserForm {
    email: String,
    name: String,
    password: String,
    role: String,
}

fn role(value: &str) -> Result<Role, PageError> {
    value
        .parse()
        .map_err(|_| PageError::BadRequest(format!("unknown role “{value}”")))
}

async fn create_user(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<NewUserForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require_admin()?;
    let state = state(&req)?;
    let f = form.fields;
    let input = NewUserInput {
        email: f.email.trim().to_owned(),
        name: f.name.trim().to_owned(),
        password: f.password,
        role: role(&f.role)?,
    };
    match state.users.create(input).await {
        Ok(user) => Ok(render::redirect_with(
            "/settings#users",
            &format!("{} can now log in as {}.", user.email, user.role.as_str()),
        )),
        Err(err @ (ServiceError::Invalid(_) | ServiceError::Conflict(_))) => {
            let mut page = settings_page(&req, &viewer).await?;
            page.user_error = Some(describe(&err));
            render::html(actix_web::http::StatusCode::BAD_REQUEST, &page)
        }
        Err(err) => Err(err.into()),
    }
}

#[derive(Deserialize)]
struct UpdateUserForm {
    role: String,
    disabled: Option<String>,
}

async fn update_user(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    form: PageForm<UpdateUserForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require_admin()?;
    let state = state(&req)?;
    let input = UserUpdateInput {
        role: Some(role(&form.fields.role)?),
        disabled: Some(form.fields.disabled.is_some()),
        ..UserUpdateInput::default()
    };
    match state.users.update(*id, input).await {
        Ok(user) => Ok(render::redirect_with(
            "/settings#users",
            &format!(
                "{} is now {}{}.",
                user.email,
                user.role.as_str(),
                if user.disabled { " (disabled)" } else { "" }
            ),
        )),
        Err(
            err @ (ServiceError::Invalid(_)
            | ServiceError::BadRequest { .. }
            | ServiceError::Forbidden(_)),
        ) => Ok(render::redirect_error("/settings#users", &describe(&err))),
        Err(err) => Err(err.into()),
    }
}
