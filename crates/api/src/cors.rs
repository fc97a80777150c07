//! CORS for a dashboard served from another origin: `CORS_ORIGIN` when set, else
//! every `APP_URLs` entry. Credentials are allowed so the session cookie works.

use crate::settings::EdgeSettings;
use actix_cors::Cors;
use actix_web::http::{Method, header};

pub fn cors(config: &EdgeSettings) -> Cors {
    let origins: Vec<String> = match &config.cors_origin {
        Some(origin) => origin
            .split(',')
            .map(|o| o.trim().trim_end_matches('/').to_owned())
            .collect(),
        None => config.app_urls.clone(),
    };
    origins
        .iter()
        .fold(Cors::default(), |cors, origin| cors.allowed_origin(origin))
        .allowed_methods([
            Method::GET,
            Method::POST,
            Method::PATCH,
            Method::PUT,
            Method::DELETE,
        ])
        .allowed_headers([header::CONTENT_TYPE, header::AUTHORIZATION, header::ACCEPT])
        .allowed_header("x-api-key")
        .allowed_header("x-request-id")
        .expose_headers([header::RETRY_AFTER])
        .expose_headers(["x-request-id"])
        .supports_credentials()
        // A foreign origin only gets no CORS headers (so its page cannot read the
        // answer); whether a write may happen at all is `csrf::check_origin`'s call.
        .block_on_origin_mismatch(false)
        .max_age(3600)
}
