//! Who is looking at a page: the session cookie's user, or a redirect to `/login`.

use crate::flash::{self, Flash};
use crate::page_error::PageError;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::future::LocalBoxFuture;
use reviewd_api::extract::SESSION_COOKIE;
use reviewd_api::state::AppState;
use reviewd_crypto::{derive, hmac_sha256_hex};
use reviewd_domain::model::SecretString;
use reviewd_domain::model::{Permission, Principal};

/// A signed-in user of the dashboard (sessions only: API keys are for the API).
pub struct Viewer {
    pub principal: Principal,
    /// The token that forms must send back (see `form.rs`).
    pub form_token: String,
    pub flash: Option<Flash>,
    pub system_name: String,
}

impl Viewer {
    pub fn is_admin(&self) -> bool {
        self.principal.is_admin()
    }

    pub fn may(&self, permission: Permission) -> bool {
        self.principal.allows(permission)
    }

    /// 403 unless the viewer holds `permission`.
    pub fn require(&self, permission: Permission) -> Result<(), PageError> {
        if self.may(permission) {
            Ok(())
        } else {
            Err(PageError::Forbidden(format!(
                "this needs the `{permission}` permission, which your role does not have"
            )))
        }
    }

    /// 403 unless the viewer is an admin.
    pub fn require_admin(&self) -> Result<(), PageError> {
        if self.is_admin() {
            Ok(())
        } else {
            Err(PageError::Forbidden(
                "only administrators can do this".to_owned(),
            ))
        }
    }
}

/// Where to come back to after logging in: this page, when it is a page of ours.
fn login_redirect(req: &HttpRequest) -> PageError {
    let path = req.uri().path_and_query().map_or("/", |p| p.as_str());
    PageError::Login(path.to_owned())
}

pub fn state(req: &HttpRequest) -> Result<web::Data<AppState>, PageError> {
    req.app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| PageError::Failed("the app state is not registered".to_owned()))
}

impl FromRequest for Viewer {
    type Error = PageError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let state = state(&req)?;
            let Some(token) = req.cookie(SESSION_COOKIE).map(|c| c.value().to_owned()) else {
                return Err(login_redirect(&req));
            };
            let principal = match state.auth.authenticate_session(&token).await {
                Ok(p) => p,
                Err(reviewd_domain::services::ServiceError::Unavailable(why)) => {
                    return Err(PageError::Unavailable(why));
                }
                Err(_) => return Err(login_redirect(&req)),
            };
            Ok(Viewer {
                principal,
                form_token: form_token(&state.settings.auth_secret, &token),
                flash: flash::read(&req),
                system_name: state.settings.system_name.clone(),
            })
        })
    }
}

/// The token every form of this session carries (`crate::form` checks it): `HMAC(key,
/// session token)`, the key derived from `AUTH_SECRET`.
pub fn form_token(auth_secret: &SecretString, session_token: &str) -> String {
    let key = derive(auth_secret.expose(), b"reviewd/web-form/v1");
    hmac_sha256_hex(&key, session_token.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_bound_to_the_session_and_the_secret() {
        let secret = SecretString::new("a-secret-of-at-least-thirty-two-chars!!");
        let other = SecretString::new("another-secret-of-at-least-thirty-two-c");
        let a = form_token(&secret, "session-a");
        assert_eq!(a, form_token(&secret, "session-a"));
        assert_ne!(a, form_token(&secret, "session-b"));
        assert_ne!(a, form_token(&other, "session-a"));
        assert_eq!(a.len(), 64);
    }
}
