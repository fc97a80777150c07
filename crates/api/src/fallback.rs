//! What answers a request no route took: the API's error body for an unknown path, and a
//! 405 with `Allow` for a documented path called with a method it does not have (read from
//! the API document's [`RouteTable`]).

use crate::error::ApiError;
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use serde_json::Value;

/// Unknown paths answer with the API's error body rather than an empty 404; a known
/// path called with another method is a 405 listing the methods it has.
pub async fn not_found(req: HttpRequest) -> HttpResponse {
    if let Some(response) = method_not_allowed(&req) {
        return response;
    }
    ApiError::not_found(format!("no route for {} {}", req.method(), req.path())).error_response()
}

/// The 405 for a documented path called with a method it does not have. Also asked
/// when a path parameter does not parse: `GET /api/projects/sync/platform` reaches
/// `GET /api/projects/{id}/platform` first, but means the `POST`-only sync route.
pub fn method_not_allowed(req: &HttpRequest) -> Option<HttpResponse> {
    let allow = req
        .app_data::<actix_web::web::Data<RouteTable>>()?
        .wrong_method(req.method().as_str(), req.path())?;
    let mut response = ApiError::new(
        actix_web::http::StatusCode::METHOD_NOT_ALLOWED,
        reviewd_domain::ErrorCode::MethodNotAllowed,
        format!(
            "{} is not allowed on {}; use {allow}",
            req.method(),
            req.path()
        ),
    )
    .error_response();
    if let Ok(value) = actix_web::http::header::HeaderValue::from_str(&allow) {
        response
            .headers_mut()
            .insert(actix_web::http::header::ALLOW, value);
    }
    Some(response)
}

/// The documented operations by path template: the fallback answers 405 with `Allow`
/// for a known path called with a method it does not have, instead of a 404.
#[derive(Debug, Default)]
pub struct RouteTable(Vec<(Vec<String>, Vec<&'static str>)>);

impl RouteTable {
    #[must_use]
    pub fn from_document(doc: &Value) -> Self {
        let mut routes = Vec::new();
        if let Some(paths) = doc.get("paths").and_then(Value::as_object) {
            for (path, item) in paths {
                let methods: Vec<&'static str> = ["GET", "POST", "PUT", "PATCH", "DELETE"]
                    .into_iter()
                    .filter(|m| item.get(m.to_lowercase()).is_some())
                    .collect();
                routes.push((path.split('/').map(str::to_owned).collect(), methods));
            }
        }
        Self(routes)
    }

    /// The methods of the template that matches `path` most literally, if any:
    /// `/api/projects/sync/platform` is that path, not `/api/projects/{id}/platform`.
    #[must_use]
    pub fn allowed(&self, path: &str) -> Option<&[&'static str]> {
        let segments: Vec<&str> = path.split('/').collect();
        self.0
            .iter()
            .filter(|(template, _)| {
                template.len() == segments.len()
                    && template.iter().zip(&segments).all(|(t, s)| {
                        t == s || (t.starts_with('{') && t.ends_with('}') && !s.is_empty())
                    })
            })
            .max_by_key(|(template, _)| template.iter().filter(|t| !t.starts_with('{')).count())
            .map(|(_, methods)| methods.as_slice())
    }

    /// `Some(allowed methods)` when `path` is known but not with `method`.
    #[must_use]
    pub fn wrong_method(&self, method: &str, path: &str) -> Option<String> {
        let methods = self.allowed(path)?;
        (!methods.contains(&method)).then(|| methods.join(", "))
    }
}
