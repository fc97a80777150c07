//! `/login` and `/logout`.

use crate::form::{NoFields, PageForm};
use crate::page_error::PageError;
use crate::render;
use crate::session;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_api::extract::{SESSION_COOKIE, session_cookie, session_removal};
use reviewd_domain::services::ServiceError;
use serde::Deserialize;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/login", web::get().to(show_login))
        .route("/login", web::post().to(log_in))
        .route("/logout", web::post().to(log_out));
}

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    asset_version: &'static str,
    system_name: String,
    next: String,
    email: String,
    error: Option<String>,
}

/// Where to go after logging in: a path of this app, else the overview.
fn safe_next(next: Option<&str>) -> String {
    render::local_path(next, "/")
}

#[derive(Deserialize)]
struct NextQuery {
    next: Option<String>,
}

async fn show_login(
    req: HttpRequest,
    query: web::Query<NextQuery>,
) -> Result<HttpResponse, PageError> {
    let state = session::state(&req)?;
    // Already signed in: straight on.
    if let Some(cookie) = req.cookie(SESSION_COOKIE)
        && state
            .auth
            .authenticate_session(cookie.value())
            .await
            .is_ok()
    {
        return Ok(render::redirect(&safe_next(query.next.as_deref())));
    }
    render::standalone(
        StatusCode::OK,
        &LoginPage {
            asset_version: crate::assets::VERSION.as_str(),
            system_name: state.settings.system_name.clone(),
            next: safe_next(query.next.as_deref()),
            email: String::new(),
            error: None,
        },
    )
}

#[derive(Deserialize)]
struct LoginForm {
    email: String,
    password: String,
    next: Option<String>,
}

async fn log_in(req: HttpRequest, form: web::Form<LoginForm>) -> Result<HttpResponse, PageError> {
    let state = session::state(&req)?;
    let form = form.into_inner();
    let client = reviewd_api::client_addr::client_info(&req, &state.settings.trusted_proxies);
    let failed = |status: StatusCode, message: String| {
        render::standalone(
            status,
            &LoginPage {
                asset_version: crate::assets::VERSION.as_str(),
                system_name: state.settings.system_name.clone(),
                next: safe_next(form.next.as_deref()),
                email: form.email.clone(),
                error: Some(message),
            },
        )
    };
    if form.email.trim().is_empty() || form.password.is_empty() {
        return failed(
            StatusCode::BAD_REQUEST,
            "Enter your email and password.".to_owned(),
        );
    }
    match state.auth.login(&form.email, &form.password, client).await {
        Ok(logged_in) => {
            let mut response = render::redirect(&safe_next(form.next.as_deref()));
            response
                .add_cookie(&session_cookie(
                    &state.settings,
                    logged_in.session_token,
                    logged_in.expires_at,
                ))
                .map_err(|e| PageError::Failed(e.to_string()))?;
            Ok(response)
        }
        Err(ServiceError::InvalidCredentials | ServiceError::Unauthenticated) => failed(
            StatusCode::UNAUTHORIZED,
            "That email and password do not match an active account.".to_owned(),
        ),
        Err(ServiceError::Throttled { retry_after }) => failed(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "Too many attempts. Try again in {} seconds.",
                retry_after.as_secs().max(1)
            ),
        ),
        Err(other) => Err(other.into()),
    }
}

async fn log_out(req: HttpRequest, _form: PageForm<NoFields>) -> Result<HttpResponse, PageError> {
    let state = session::state(&req)?;
    if let Some(cookie) = req.cookie(SESSION_COOKIE) {
        state.auth.logout(cookie.value()).await?;
    }
    let mut response = render::redirect("/login");
    response
        .add_cookie(&session_removal())
        .map_err(|e| PageError::Failed(e.to_string()))?;
    Ok(response)
}
