//! Cross-site request forgery: a state-changing request that a browser authenticated
//! with the session cookie must come from one of the app's own pages.
//!
//! Browsers put the page's origin in `Origin` on every POST/PUT/PATCH/DELETE (and
//! `Referer` where an old one does not), and a page of another site cannot forge
//! either. So a cookie-authenticated write whose `Origin` (or, without it, `Referer`)
//! is not one of the app's URLs is refused with 403 before any handler runs. Logins
//! are checked the same way, cookie or not: a foreign page must not sign a visitor into
//! an account of its choosing. Calls with an API key carry no ambient credential and are
//! not checked; neither are other calls without the cookie (webhooks). A request with
//! neither header comes from no browser (curl with a cookie jar), which a forging site
//! cannot make a victim send.
//!
//! The app's URLs are every `APP_URLs` entry, `CORS_ORIGIN`'s entries, and the address
//! the request itself was sent to (its `Host`), so that the dashboard works at
//! `http://127.0.0.1:3000` as well as at `APP_URL`. The dashboard's forms also carry
//! a token bound to the session (`reviewd-web`), a second line of defence.

use crate::error::ApiError;
use crate::extract::SESSION_COOKIE;
use crate::settings::EdgeSettings;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{AUTHORIZATION, HOST, ORIGIN, REFERER};
use actix_web::middleware::Next;
use actix_web::{Error, ResponseError, web};
use reviewd_domain::ErrorCode;

/// The origins (`scheme://host[:port]`) that may make cookie-authenticated writes.
#[derive(Debug, Clone)]
pub struct TrustedOrigins(Vec<String>);

impl TrustedOrigins {
    #[must_use]
    pub fn from_settings(config: &EdgeSettings) -> Self {
        let mut origins: Vec<String> = config
            .app_urls
            .iter()
            .filter_map(|u| origin_of(u))
            .collect();
        origins.extend(origin_of(&config.app_url));
        if let Some(list) = &config.cors_origin {
            origins.extend(list.split(',').filter_map(|u| origin_of(u.trim())));
        }
        origins.sort();
        origins.dedup();
        Self(origins)
    }

    /// Whether `origin` is one of the app's URLs or names the host the request went to.
    fn allows(&self, origin: &str, request_host: Option<&str>) -> bool {
        let Some(origin) = origin_of(origin) else {
            return false;
        };
        if self.0.contains(&origin) {
            return true;
        }
        // `scheme://host[:port]`: the authority must be exactly the request's Host.
        let authority = origin.split_once("://").map(|(_, a)| a);
        matches!((authority, request_host), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h))
    }
}

/// `scheme://host[:port]` of a URL (default ports dropped, lower-cased), or `None`.
fn origin_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    let host = parsed.host_str()?.to_ascii_lowercase();
    Some(match parsed.port() {
        Some(port) => format!("{}://{host}:{port}", parsed.scheme()),
        None => format!("{}://{host}", parsed.scheme()),
    })
}

fn is_write(method: &Method) -> bool {
    !matches!(
        *method,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE
    )
}

/// Logins carry no session yet, but a foreign page must not sign a visitor into an
/// account of its choosing either (login CSRF).
fn is_login(path: &str) -> bool {
    matches!(path, "/login" | "/api/auth/login")
}

/// Whether the request is a cookie-authenticated write (or a login) from a page that is
/// not ours.
fn is_forged(req: &ServiceRequest, trusted: &TrustedOrigins) -> bool {
    if !is_write(req.method()) {
        return false;
    }
    let ambient = req.cookie(SESSION_COOKIE).is_some()
        && !req.headers().contains_key(AUTHORIZATION)
        && !req.headers().contains_key("x-api-key");
    if !ambient && !is_login(req.path()) {
        return false;
    }
    let host = req.headers().get(HOST).and_then(|h| h.to_str().ok());
    let claimed = req
        .headers()
        .get(ORIGIN)
        .or_else(|| req.headers().get(REFERER))
        .map(|v| v.to_str().unwrap_or_default());
    match claimed {
        None => false,
        Some(origin) => !trusted.allows(origin, host),
    }
}

/// Middleware: refuses forged cookie-authenticated writes with the API's 403 body.
pub async fn check_origin(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody + 'static>>, Error> {
    let forged = req
        .app_data::<web::Data<TrustedOrigins>>()
        .is_some_and(|trusted| is_forged(&req, trusted));
    if forged {
        tracing::warn!(
            http.path = %req.path(),
            origin = ?req.headers().get(ORIGIN),
            "csrf.refused"
        );
        let response = ApiError::new(
            actix_web::http::StatusCode::FORBIDDEN,
            ErrorCode::CsrfOriginMismatch,
            "this request came from a page that is not this app's; reload the page and try again",
        )
        .error_response();
        return Ok(req.into_response(response).map_into_right_body());
    }
    Ok(next.call(req).await?.map_into_left_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trusted() -> TrustedOrigins {
        TrustedOrigins(vec!["https://reviewd.example.com".to_owned()])
    }

    #[test]
    fn origins_are_normalised() {
        assert_eq!(
            origin_of("HTTPS://Reviewd.Example.com:443/login?x=1").as_deref(),
            Some("https://reviewd.example.com")
        );
        assert_eq!(
            origin_of("http://127.0.0.1:3000/").as_deref(),
            Some("http://127.0.0.1:3000")
        );
        assert_eq!(origin_of("null"), None);
        assert_eq!(origin_of("javascript:alert(1)"), None);
    }

    #[test]
    fn app_urls_and_the_requested_host_are_trusted_and_nothing_else() {
        let t = trusted();
        assert!(t.allows("https://reviewd.example.com", None));
        assert!(t.allows("https://reviewd.example.com/reviews/1", Some("other")));
        assert!(t.allows("http://127.0.0.1:3000", Some("127.0.0.1:3000")));
        assert!(!t.allows("http://127.0.0.1:3000", Some("127.0.0.1:3001")));
        assert!(!t.allows("https://evil.example", Some("reviewd.example.com")));
        assert!(!t.allows("https://reviewd.example.com.evil.example", None));
        assert!(!t.allows("null", Some("null")));
    }
}
