//! Turning templates into responses, and failures into pages.

use crate::flash::{self, Flash};
use crate::page_error::{PageError, describe};
use crate::session::Viewer;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION};
use askama::Template;
use reviewd_domain::model::Permission;
use reviewd_domain::services::ServiceError;

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
