//! `POST /api/auth/login`, `POST /api/auth/logout`, `GET /api/auth/me`.

use super::dto::UserDto;
use crate::envelope;
use crate::error::ApiError;
use crate::extract::{AuthUser, SESSION_COOKIE, ValidatedJson, session_cookie, session_removal};
use crate::state::AppState;
use actix_web::http::header::USER_AGENT;
use actix_web::{HttpRequest, HttpResponse, web};
use reviewd_domain::model::AuthMethod;
use reviewd_domain::services::ClientInfo;
use serde::Deserialize;
use serde_json::json;
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(scope(
        web::scope("/auth")
            .route("/login", web::post().to(login))
            .route("/logout", web::post().to(logout))
            .route("/me", web::get().to(me)),
    ));
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields)]
struct LoginBody {
    #[validate(length(min = 1, max = 320, message = "is required"))]
    email: String,
    #[validate(length(min = 1, max = 1024, message = "is required"))]
    password: String,
}

async fn login(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: ValidatedJson<LoginBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.0;
    let client = ClientInfo {
        ip: req.peer_addr().map(|a| a.ip().to_string()),
        user_agent: req
            .headers()
            .get(USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(|s| s.chars().take(256).collect()),
    };
    let logged_in = state
        .auth
        .login(&body.email, &body.password, client)
        .await?;
    let cookie = session_cookie(&state.config, logged_in.session_token, logged_in.expires_at);
    let mut response = envelope::ok(json!({
        "user": UserDto::from(logged_in.user),
        "expiresAt": logged_in.expires_at,
    }));
    response.add_cookie(&cookie).map_err(ApiError::internal)?;
    Ok(response)
}

/// Ends the cookie's session (if any) and clears the cookie; always 200.
async fn logout(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    if let Some(cookie) = req.cookie(SESSION_COOKIE) {
        state.auth.logout(cookie.value()).await?;
    }
    let mut response = envelope::ok(json!({ "success": true }));
    response
        .add_cookie(&session_removal())
        .map_err(ApiError::internal)?;
    Ok(response)
}

async fn me(AuthUser(principal): AuthUser) -> HttpResponse {
    let method = match principal.method {
        AuthMethod::Session { .. } => "session",
        AuthMethod::ApiKey { .. } => "apiKey",
    };
    envelope::ok(json!({ "user": UserDto::from(principal.user), "authMethod": method }))
}
