//! `POST /api/auth/login`, `POST /api/auth/logout`, `GET /api/auth/me`.

use super::dto::UserDto;
use crate::envelope::{self, Data, Success};
use crate::error::{ApiError, ErrorEnvelope};
use crate::extract::{AuthUser, SESSION_COOKIE, ValidatedJson, session_cookie, session_removal};
use crate::field_schemas::string_enum;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::AuthMethod;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/auth")
            .service(login)
            .service(logout)
            .service(get_current_user),
    );
}

/// An email and password; the email is matched case-insensitively.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
struct LoginBody {
    #[validate(length(min = 1, max = 320, message = "is required"))]
    #[schema(min_length = 1, max_length = 320)]
    email: String,
    #[validate(length(min = 1, max = 1024, message = "is required"))]
    #[schema(min_length = 1, max_length = 1024)]
    password: String,
}

/// The logged-in user and when the session ends.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct LoginDto {
    expires_at: DateTime<Utc>,
    user: UserDto,
}

/// Logs in with an email and password, setting the session cookie.
///
/// The cookie (HttpOnly) is valid until `expiresAt`. Wrong credentials or a disabled
/// account are a 401; repeated failures are throttled (429).
#[utoipa::path(
    request_body = LoginBody,
    responses((
        status = 200,
        body = Data<LoginDto>,
        headers(("Set-Cookie" = String, description = "The session cookie `reviewd_session`.")),
    ), (
        status = 401,
        description = "Wrong email or password (`INVALID_CREDENTIALS`), indistinguishably.",
        body = ErrorEnvelope,
    ), (
        status = 403,
        description = "Sent from a page of another origin (`CSRF_ORIGIN_MISMATCH`).",
        body = ErrorEnvelope,
    )),
    security(()),
)]
#[post("/login")]
async fn login(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: ValidatedJson<LoginBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.0;
    let client = crate::client_addr::client_info(&req, &state.settings.trusted_proxies);
    let logged_in = state
        .auth
        .login(&body.email, &body.password, client)
        .await?;
    let cookie = session_cookie(
        &state.settings,
        logged_in.session_token,
        logged_in.expires_at,
    );
    let mut response = envelope::ok(LoginDto {
        expires_at: logged_in.expires_at,
        user: UserDto::from(logged_in.user),
    });
    response.add_cookie(&cookie).map_err(ApiError::internal)?;
    Ok(response)
}

/// Logs out: ends the cookie's session, if any, and clears the cookie.
///
/// Answers 200 with or without a session.
#[utoipa::path(
    responses((
        status = 200,
        body = Data<Success>,
        headers(("Set-Cookie" = String, description = "Clears the session cookie.")),
    )),
    security((), ("session" = [])),
)]
#[post("/logout")]
async fn logout(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    if let Some(cookie) = req.cookie(SESSION_COOKIE) {
        state.auth.logout(cookie.value()).await?;
    }
    let mut response = envelope::success();
    response
        .add_cookie(&session_removal())
        .map_err(ApiError::internal)?;
    Ok(response)
}

/// `session` (the cookie) or `apiKey` (a bearer token or `x-api-key`).
fn auth_method_schema() -> utoipa::openapi::Object {
    let mut schema = string_enum(["session", "apiKey"]);
    schema.description =
        Some("`session` (the cookie) or `apiKey` (a bearer token or `x-api-key`).".to_owned());
    schema
}

/// The caller and how they authenticated.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct CurrentUserDto {
    #[schema(schema_with = auth_method_schema)]
    auth_method: &'static str,
    user: UserDto,
}

/// The authenticated caller.
#[utoipa::path(responses((status = 200, body = Data<CurrentUserDto>)))]
#[get("/me")]
async fn get_current_user(AuthUser(principal): AuthUser) -> HttpResponse {
    let auth_method = match principal.method {
        AuthMethod::Session { .. } => "session",
        AuthMethod::ApiKey { .. } => "apiKey",
    };
    envelope::ok(CurrentUserDto {
        auth_method,
        user: UserDto::from(principal.user),
    })
}
