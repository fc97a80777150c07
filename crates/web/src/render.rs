//! Turning templates into responses, and failures into pages.

use crate::flash::{self, Flash};
use crate::session::Viewer;
use actix_web::http::StatusCode;
use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION};
use actix_web::{HttpResponse, ResponseError};
use askama::Template;
use reviewd_domain::model::Permission;
use reviewd_domain::services::ServiceError;
use std::fmt;

/// What the layout needs on every page: who is looking, what they may do, where they are.
pub struct Chrome {
    pub title: String,
    pub nav: &'static str,
    pub system_name: String,
    pub user_name: String,
    pub user_email: String,
    pub role: &'static str,
    pub is_admin: bool,
    /// Maintainers and admins: configuration, projects, templates.
    pub can_configure: bool,
    pub can_review: bool,
    pub form_token: String,
    pub flash: Option<Flash>,
    pub asset_version: &'static str,
}

impl Chrome {
    pub fn new(viewer: &Viewer, nav: &'static str, title: impl Into<String>) -> Self {
        let user = &viewer.principal.user;
        Chrome {
            title: title.into(),
            nav,
            system_name: viewer.system_name.clone(),
            user_name: user.name.clone(),
            user_email: user.email.clone(),
            role: user.role.as_str(),
            is_admin: viewer.is_admin(),
            can_configure: viewer.may(Permission::ConfigUpdate),
            can_review: viewer.may(Permission::ReviewCreate),
            form_token: viewer.form_token.clone(),
            flash: viewer.flash.clone(),
            asset_version: crate::assets::VERSION.as_str(),
        }
    }
}

/// A page of the layout: a template with the [`Chrome`].
pub trait Page: Template {
    fn chrome(&self) -> &Chrome;
}

/// Implements [`Page`] for page structs that have a `chrome` field.
macro_rules! pages {
    ($($page:ty),+ $(,)?) => {$(
        impl $crate::render::Page for $page {
            fn chrome(&self) -> &$crate::render::Chrome {
                &self.chrome
            }
        }
    )+};
}
pub(crate) use pages;

/// A rendered page (200).
pub fn page(template: &impl Page) -> Result<HttpResponse, PageError> {
    html(StatusCode::OK, template)
}

/// A rendered page with `status`; a flash message it shows is cleared.
pub fn html(status: StatusCode, template: &impl Page) -> Result<HttpResponse, PageError> {
    respond(status, template, template.chrome().flash.is_some())
}

/// A page outside the layout (login).
pub fn standalone(status: StatusCode, template: &impl Template) -> Result<HttpResponse, PageError> {
    respond(status, template, false)
}

fn respond(
    status: StatusCode,
    template: &impl Template,
    shown_flash: bool,
) -> Result<HttpResponse, PageError> {
    let body = template
        .render()
        .map_err(|e| PageError::Failed(format!("template: {e}")))?;
    let mut response = HttpResponse::build(status)
        .insert_header((CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((CACHE_CONTROL, "no-store"))
        // Our own script and styles only; style attributes for widths of bars. No
        // `form-action`: Chrome applies it to the OAuth redirect after a form too.
        .insert_header((
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
             img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; \
             base-uri 'none'",
        ))
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .insert_header(("Referrer-Policy", "same-origin"))
        .body(body);
    if shown_flash {
        // Shown once: the next page does not show it again.
        let _ = response.add_cookie(&flash::removal());
    }
    Ok(response)
}

/// `target` when it is a path of this app, else `fallback`: never `//host`, `/\host`,
/// an absolute URL, or anything with whitespace or control characters (browsers drop
/// tabs and newlines from URLs, so `/\t/evil.example` would leave the site).
pub fn local_path(target: Option<&str>, fallback: &str) -> String {
    match target {
        Some(t)
            if t.starts_with('/')
                && !t.starts_with("//")
                && !t.contains('\\')
                && !t.chars().any(|c| c.is_control() || c.is_whitespace()) =>
        {
            t.to_owned()
        }
        _ => fallback.to_owned(),
    }
}

/// 303 to `to` (after a form: the browser follows with a GET).
pub fn redirect(to: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((LOCATION, to.to_owned()))
        .finish()
}

/// 303 to `to` with a message for the next page.
pub fn redirect_with(to: &str, message: &str) -> HttpResponse {
    let mut r = redirect(to);
    let _ = r.add_cookie(&flash::cookie(message, false));
    r
}

/// 303 to `to` with an error message for the next page.
pub fn redirect_error(to: &str, message: &str) -> HttpResponse {
    let mut r = redirect(to);
    let _ = r.add_cookie(&flash::cookie(message, true));
    r
}

/// The answer to a form's action: back to `to` with `done(value)` when it worked; back
/// with the reason when it is the user's to mend (bad input, a clash, the platform's
/// refusal); a page of its own for the rest (not found, forbidden, outages, bugs).
pub fn after<T>(
    result: Result<T, ServiceError>,
    to: &str,
    done: impl FnOnce(T) -> String,
) -> Result<HttpResponse, PageError> {
    match result {
        Ok(value) => Ok(redirect_with(to, &done(value))),
        Err(
            err @ (ServiceError::Invalid(_)
            | ServiceError::BadRequest { .. }
            | ServiceError::Conflict(_)
            | ServiceError::Platform(_)),
        ) => Ok(redirect_error(to, &describe(&err))),
        Err(err) => Err(err.into()),
    }
}

/// A failure shown as a page of its own (or a redirect to the login page).
#[derive(Debug)]
pub enum PageError {
    Login(String),
    BadRequest(String),
    Forbidden(String),
    NotFound(String),
    Unavailable(String),
    Failed(String),
}

impl fmt::Display for PageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PageError::Login(next) => write!(f, "login required for {next}"),
            PageError::BadRequest(m)
            | PageError::Forbidden(m)
            | PageError::NotFound(m)
            | PageError::Unavailable(m)
            | PageError::Failed(m) => f.write_str(m),
        }
    }
}

/// A user-facing sentence for a domain error (never internals).
pub fn describe(err: &ServiceError) -> String {
    match err {
        ServiceError::Invalid(fields) => fields
            .iter()
            .map(|f| format!("{}: {}", f.field, f.message))
            .collect::<Vec<_>>()
            .join("; "),
        ServiceError::Internal(_) => {
            "something went wrong on the server; the log has the details".to_owned()
        }
        ServiceError::Unavailable(_) => {
            "a dependency (database or queue) is unavailable; try again shortly".to_owned()
        }
        other => other.to_string(),
    }
}

impl From<ServiceError> for PageError {
    fn from(err: ServiceError) -> Self {
        match &err {
            ServiceError::NotFound(what) => PageError::NotFound(format!("{what} not found")),
            ServiceError::Forbidden(why) => PageError::Forbidden(why.clone()),
            ServiceError::Unauthenticated => PageError::Login("/".to_owned()),
            ServiceError::Unavailable(why) => PageError::Unavailable(why.clone()),
            ServiceError::Internal(why) => {
                tracing::error!(error = %why, "page.failed");
                PageError::Failed(describe(&err))
            }
            _ => PageError::BadRequest(describe(&err)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::local_path;

    #[test]
    fn only_paths_of_this_app_are_followed() {
        assert_eq!(
            local_path(Some("/reviews?status=failed"), "/"),
            "/reviews?status=failed"
        );
        for hostile in [
            "//evil.example/x",
            "/\\evil.example",
            "https://evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "/ /evil.example",
            "javascript:alert(1)",
            "",
        ] {
            assert_eq!(local_path(Some(hostile), "/"), "/", "{hostile:?}");
        }
        assert_eq!(local_path(None, "/projects"), "/projects");
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    asset_version: &'static str,
    status: u16,
    heading: &'a str,
    message: &'a str,
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        match self {
            PageError::Login(_) => StatusCode::SEE_OTHER,
            PageError::BadRequest(_) => StatusCode::BAD_REQUEST,
            PageError::Forbidden(_) => StatusCode::FORBIDDEN,
            PageError::NotFound(_) => StatusCode::NOT_FOUND,
            PageError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            PageError::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let (heading, message) = match self {
            PageError::Login(next) => {
                let target = format!("/login?next={}", crate::format::url_encode(next));
                return redirect(&target);
            }
            PageError::BadRequest(m) => ("That did not work", m.as_str()),
            PageError::Forbidden(m) => ("Not allowed", m.as_str()),
            PageError::NotFound(m) => ("Not found", m.as_str()),
            PageError::Unavailable(_) => (
                "Temporarily unavailable",
                "the database or the queue is not answering; try again shortly",
            ),
            PageError::Failed(_) => (
                "Something went wrong",
                "the server could not show this page; the log has the details",
            ),
        };
        let status = self.status_code();
        let page = ErrorPage {
            asset_version: crate::assets::VERSION.as_str(),
            status: status.as_u16(),
            heading,
            message,
        };
        match page.render() {
            Ok(body) => HttpResponse::build(status)
                .insert_header((CONTENT_TYPE, "text/html; charset=utf-8"))
                .body(body),
            Err(_) => HttpResponse::build(status).body(message.to_owned()),
        }
    }
}
