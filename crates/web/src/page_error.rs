//! A failure shown as a page of its own (or a redirect to the login page), and the sentence a
//! user reads for a domain error.

use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_TYPE, LOCATION};
use actix_web::{HttpResponse, ResponseError};
use askama::Template;
use reviewd_domain::services::ServiceError;
use std::fmt;

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
                return HttpResponse::SeeOther()
                    .insert_header((LOCATION, target))
                    .finish();
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
