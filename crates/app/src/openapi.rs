//! The API document (OpenAPI 3.1), generated from the handlers and their DTOs.
//!
//! Routes under `/api` are registered through `utoipa-actix-web`, which collects each
//! handler's `#[utoipa::path]` as it mounts it: a route cannot exist undocumented, nor
//! a documented operation without its route. What every operation shares (how a
//! caller authenticates, the error envelope and the statuses that carry it) is added
//! here once instead of on each handler.

use crate::error::ErrorEnvelope;
use crate::routes;
use actix_web::App;
use utoipa::OpenApi;
use utoipa::ToSchema;
use utoipa::openapi::path::{Operation, PathItem};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, RefOr, Response, ResponseBuilder};
use utoipa_actix_web::AppExt;

/// The document's fixed parts; the paths and schemas come from the routes.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "reviewd API",
        description = "Reviews merge requests and pull requests with an AI model. Every \
            successful answer is `{\"data\": ...}` (lists add `meta.pagination`); every error \
            is `{\"error\": {\"code\", \"message\", \"details\"}}`. Authenticate with the \
            session cookie from `POST /api/auth/login`, or an API key as a bearer token or in \
            `x-api-key`.",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    security(("session" = []), ("bearer" = []), ("apiKey" = [])),
    components(schemas(ErrorEnvelope)),
)]
struct ApiDoc;

/// The whole document, as served at `GET /api/openapi.json`.
#[must_use]
pub fn document() -> utoipa::openapi::OpenApi {
    let (_, collected) = App::new()
        .into_utoipa_app()
        .configure(routes::configure)
        .split_for_parts();
    let mut doc = ApiDoc::openapi();
    doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
    doc.merge(collected);
    add_security_schemes(&mut doc);
    for item in doc.paths.paths.values_mut() {
        for (method, operation) in operations(item) {
            add_error_responses(method, operation);
        }
    }
    doc
}

/// The three ways to present a credential (see `extract::auth`).
fn add_security_schemes(doc: &mut utoipa::openapi::OpenApi) {
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "session",
        SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
            crate::extract::SESSION_COOKIE,
            "The session cookie set by `POST /api/auth/login` (the dashboard's too).",
        ))),
    );
    components.add_security_scheme(
        "bearer",
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .description(Some("An API key: `Authorization: Bearer <key>`."))
                .build(),
        ),
    );
    components.add_security_scheme(
        "apiKey",
        SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
            "x-api-key",
            "An API key in the `x-api-key` header.",
        ))),
    );
}

fn operations(item: &mut PathItem) -> Vec<(&'static str, &mut Operation)> {
    [
        ("get", item.get.as_mut()),
        ("post", item.post.as_mut()),
        ("put", item.put.as_mut()),
        ("patch", item.patch.as_mut()),
        ("delete", item.delete.as_mut()),
    ]
    .into_iter()
    .filter_map(|(m, op)| op.map(|op| (m, op)))
    .collect()
}

/// The statuses any operation may answer with the error envelope, by what it takes:
/// every operation can meet bad input, rate limits, a failing dependency or a bug; an
/// authenticated one a missing credential or permission; a path with an id an unknown
/// one; a body a wrong size or type; a write a conflict.
fn add_error_responses(method: &str, operation: &mut Operation) {
    let public = operation
        .security
        .as_ref()
        .is_some_and(|reqs| reqs.iter().all(is_empty_requirement));
    let mut statuses: Vec<(&str, &str)> = vec![
        (
            "400",
            "The request is invalid: `details.fields` names each bad field.",
        ),
        ("404", "Not found (an unknown id, or nothing at this path)."),
        (
            "429",
            "Too many requests; `Retry-After` says when to try again.",
        ),
        (
            "500",
            "A bug; the server log has the cause under the request id.",
        ),
        (
            "502",
            "The hosting platform refused or answered in an unexpected way.",
        ),
        (
            "503",
            "A dependency (database, queue, platform) is unavailable; retry later.",
        ),
    ];
    if !public {
        statuses.push(("401", "No valid session cookie or API key."));
        statuses.push((
            "403",
            "The caller lacks the permission this operation needs.",
        ));
    }
    if operation.request_body.is_some() || method != "get" {
        statuses.push((
            "409",
            "Conflicts with the current state (a duplicate, a change in flight).",
        ));
        statuses.push(("413", "The body is larger than this endpoint accepts."));
        statuses.push(("415", "The body is not JSON."));
    }
    for (status, description) in statuses {
        operation
            .responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| RefOr::T(error_response(description)));
    }
}

fn is_empty_requirement(req: &utoipa::openapi::security::SecurityRequirement) -> bool {
    serde_json::to_value(req).is_ok_and(|v| v.as_object().is_some_and(serde_json::Map::is_empty))
}

fn error_response(description: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                    ErrorEnvelope::name(),
                ))))
                .build(),
        )
        .build()
}

/// A string schema limited to `values`: for a field holding one of a domain enum's
/// values, e.g. `#[schema(schema_with = task_status)]` with
/// `fn task_status() -> Object { string_enum(TaskStatus::ALL.iter().map(|s| s.as_str())) }`.
#[must_use]
pub fn string_enum(values: impl IntoIterator<Item = &'static str>) -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .enum_values(Some(values))
        .build()
}

/// A date filter (`extract::dates`): a plain date (`2026-01-31`) or an RFC 3339
/// date-time. Use as `#[param(schema_with = date_or_datetime)]`.
#[must_use]
pub fn date_or_datetime() -> utoipa::openapi::schema::OneOf {
    use utoipa::openapi::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
    utoipa::openapi::schema::OneOfBuilder::new()
        .item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Date))),
        )
        .item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime))),
        )
        .description(Some(
            "A plain date (`2026-01-31`) or an RFC 3339 date-time.",
        ))
        .build()
}

/// The document as JSON, computed once at start.
#[must_use]
pub fn document_json() -> String {
    document().to_json().unwrap_or_else(|e| {
        tracing::error!(error = %e, "openapi.serialize_failed");
        "{}".to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dump() {
        let doc = document();
        let json = doc.to_pretty_json().unwrap();
        std::fs::write("/tmp/openapi.json", json).unwrap();
    }
}
