use crate::error::ApiError;
use crate::state::AppState;
use actix_web::cookie::{Cookie, SameSite, time};
use actix_web::dev::Payload;
use actix_web::http::header::AUTHORIZATION;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::future::LocalBoxFuture;
use reviewd_domain::model::{Permission, Principal};
use std::marker::PhantomData;

/// Name of the dashboard's session cookie.
pub const SESSION_COOKIE: &str = "reviewd_session";

/// The session cookie for `token` (HttpOnly, SameSite=Lax, Secure when the app URL is
/// https), valid until `expires_at`; the API's login and the dashboard's both set it.
#[must_use]
pub fn session_cookie(
    settings: &crate::settings::EdgeSettings,
    token: String,
    expires_at: chrono::DateTime<chrono::Utc>,
) -> Cookie<'static> {
    let max_age = (expires_at - chrono::Utc::now()).num_seconds().max(0);
    Cookie::build(SESSION_COOKIE, token)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(settings.secure_cookies())
        .max_age(time::Duration::seconds(max_age))
        .finish()
}

/// The cookie that ends the session cookie in the browser.
#[must_use]
pub fn session_removal() -> Cookie<'static> {
    let mut removal = Cookie::build(SESSION_COOKIE, "")
        .path("/")
        .http_only(true)
        .finish();
    removal.make_removal();
    removal
}

/// Any authenticated caller: a session cookie, `Authorization: Bearer <API key>`, or
/// `x-api-key: <API key>`. A presented but invalid credential is a 401 even when
/// another one would be valid, so a client never silently acts as someone else.
pub struct AuthUser(pub Principal);

enum Credential {
    ApiKey(String),
    Session(String),
}

/// Every credential the request presents, header keys first.
fn credentials(req: &HttpRequest) -> Result<Vec<Credential>, ApiError> {
    let mut found = Vec::new();
    if let Some(value) = req.headers().get(AUTHORIZATION) {
        let value = value.to_str().unwrap_or_default();
        let token = value
            .strip_prefix("Bearer ")
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                ApiError::unauthorized("the Authorization header must be `Bearer <API key>`")
            })?;
        found.push(Credential::ApiKey(token.to_owned()));
    }
    if let Some(value) = req.headers().get("x-api-key") {
        let token = value.to_str().unwrap_or_default().trim();
        if token.is_empty() {
            return Err(ApiError::unauthorized("the x-api-key header is empty"));
        }
        found.push(Credential::ApiKey(token.to_owned()));
    }
    if let Some(cookie) = req.cookie(SESSION_COOKIE) {
        found.push(Credential::Session(cookie.value().to_owned()));
    }
    Ok(found)
}

/// Each presented credential must be valid and name the same user: a stale cookie
/// beside a good key, or a key of another user beside a session, is a 401 rather than
/// a guess at which one the caller meant.
async fn authenticate(req: HttpRequest) -> Result<Principal, ApiError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| ApiError::internal("AppState is not registered"))?
        .clone();
    let presented = credentials(&req)?;
    if presented.is_empty() {
        return Err(ApiError::unauthorized(
            "authentication required: send a session cookie or an API key",
        ));
    }
    let mut principal: Option<Principal> = None;
    for credential in presented {
        let this = match credential {
            Credential::ApiKey(key) => state.auth.authenticate_api_key(&key).await,
            Credential::Session(token) => state.auth.authenticate_session(&token).await,
        }
        .map_err(|e| match ApiError::from(e) {
            e if e.status == actix_web::http::StatusCode::UNAUTHORIZED => {
                ApiError::unauthorized("invalid, expired or revoked credentials")
            }
            other => other,
        })?;
        match &principal {
            None => principal = Some(this),
            Some(first) if first.user.id != this.user.id => {
                return Err(ApiError::unauthorized(
                    "the credentials presented belong to different users; send one",
                ));
            }
            Some(_) => {}
        }
    }
    let principal = principal.ok_or_else(|| ApiError::unauthorized("authentication required"))?;
    tracing::Span::current().record("user.id", tracing::field::display(principal.user.id));
    Ok(principal)
}

impl FromRequest for AuthUser {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { Ok(AuthUser(authenticate(req).await?)) })
    }
}

/// A permission, as a type, for [`RequirePermission`].
pub trait PermissionMarker {
    const PERMISSION: Permission;
}

/// Marker types for the contract's permissions.
pub mod perm {
    use super::PermissionMarker;
    use reviewd_domain::model::Permission;

    macro_rules! markers {
        ($($name:ident),* $(,)?) => {$(
            #[doc = concat!("Requires `", stringify!($name), "`.")]
            pub struct $name;
            impl PermissionMarker for $name {
                const PERMISSION: Permission = Permission::$name;
            }
        )*};
    }

    markers!(
        ReviewCreate,
        ProjectCreate,
        ProjectUpdate,
        ProjectDelete,
        ConfigCreate,
        ConfigUpdate,
        ConfigDelete,
        NotificationDelete,
        AnalysisUpload
    );
}

/// An authenticated caller holding permission `P`: 401 without credentials, 403 without `P`.
pub struct RequirePermission<P: PermissionMarker>(pub Principal, pub PhantomData<P>);

impl<P: PermissionMarker + 'static> FromRequest for RequirePermission<P> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let principal = authenticate(req).await?;
            if !principal.allows(P::PERMISSION) {
                return Err(ApiError::forbidden(format!(
                    "this action requires the `{}` permission",
                    P::PERMISSION
                ))
                .into());
            }
            Ok(RequirePermission(principal, PhantomData))
        })
    }
}

/// An authenticated admin: 401 without credentials, 403 for other roles.
pub struct RequireAdmin(pub Principal);

impl FromRequest for RequireAdmin {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let principal = authenticate(req).await?;
            if !principal.is_admin() {
                return Err(ApiError::forbidden("this action requires the admin role").into());
            }
            Ok(RequireAdmin(principal))
        })
    }
}
