//! HTTP routes, one module per resource, each with a `configure` function.

mod ai_configs;
mod api_keys;
mod auth;
mod catalog;
mod dto;
mod health;
mod metrics;
mod monitoring;
mod notifications;
mod platform_configs;
mod projects;
mod reviews;
mod runners;
mod serde_helpers;
mod system;
mod users;
mod webhooks;

pub use webhooks::WEBHOOK_BODY_LIMIT;

use crate::error::ApiError;
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use utoipa_actix_web::{scope, service_config::ServiceConfig};

/// Every route under `/api`.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/api")
            .configure(health::configure)
            .configure(metrics::configure)
            .configure(monitoring::configure)
            .configure(system::configure)
            .configure(auth::configure)
            .configure(api_keys::configure)
            .configure(users::configure)
            .configure(platform_configs::configure)
            .configure(ai_configs::configure)
            .configure(projects::configure)
            .configure(catalog::configure)
            .configure(reviews::configure)
            .configure(runners::configure)
            .configure(notifications::configure)
            .configure(webhooks::configure),
    );
}

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
        .app_data::<actix_web::web::Data<crate::openapi::RouteTable>>()?
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
