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
use serde_json::Value;
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

/// Where the document is served (and where Swagger UI reads it).
pub const DOCUMENT_PATH: &str = "/api/openapi.json";

/// The document as served: its JSON text, made once and shared by every worker.
pub struct Serialized(actix_web::web::Bytes);

impl Serialized {
    #[must_use]
    pub fn of(doc: &Value) -> Self {
        Self(serde_json::to_vec(doc).unwrap_or_default().into())
    }
}

/// `GET /api/openapi.json`.
pub async fn serve(doc: actix_web::web::Data<Serialized>) -> actix_web::HttpResponse {
    actix_web::HttpResponse::Ok()
        .content_type(actix_web::http::header::ContentType::json())
        .body(doc.0.clone())
}

/// The whole document, as served at [`DOCUMENT_PATH`].
#[must_use]
pub fn document() -> Value {
    let (_, collected) = App::new()
        .into_utoipa_app()
        .configure(routes::configure)
        .split_for_parts();
    let mut doc = ApiDoc::openapi();
    doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
    doc.merge(collected);
    add_security_schemes(&mut doc);
    add_error_responses(&mut doc);
    let mut doc = serde_json::to_value(doc).unwrap_or_else(|e| {
        tracing::error!(error = %e, "openapi.serialize_failed");
        Value::Null
    });
    describe_successes_and_tag(&mut doc);
    no_control_characters(&mut doc);
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
/// every operation can meet bad input, an unknown id, a conflict with what is stored,
/// rate limits, a failing dependency or a bug; an authenticated one a missing
/// credential or permission; a write a body too large or not JSON. Each is one shared response.
const ERRORS: &[(&str, &str, &str)] = &[
    (
        "400",
        "BadRequest",
        "The request is invalid: `details.fields` names each bad field.",
    ),
    ("401", "Unauthorized", "No valid session cookie or API key."),
    (
        "403",
        "Forbidden",
        "The caller lacks the permission this operation needs.",
    ),
    (
        "404",
        "NotFound",
        "Not found: an unknown id, or a disabled feature.",
    ),
    (
        "409",
        "Conflict",
        "Conflicts with the current state (a duplicate, a change in flight).",
    ),
    (
        "413",
        "PayloadTooLarge",
        "The body is larger than this endpoint accepts.",
    ),
    ("415", "UnsupportedMediaType", "The body is not JSON."),
    (
        "429",
        "TooManyRequests",
        "Too many requests; `Retry-After` says when to try again.",
    ),
    (
        "500",
        "InternalError",
        "A bug; the server log has the cause under the request id.",
    ),
    (
        "502",
        "BadGateway",
        "The hosting platform refused or answered in an unexpected way.",
    ),
    (
        "503",
        "ServiceUnavailable",
        "A dependency (database, queue, platform) is unavailable; retry later.",
    ),
];

fn add_error_responses(doc: &mut utoipa::openapi::OpenApi) {
    let components = doc.components.get_or_insert_with(Default::default);
    for (_, name, description) in ERRORS {
        components
            .responses
            .insert((*name).to_owned(), RefOr::T(error_response(description)));
    }
    for item in doc.paths.paths.values_mut() {
        for (method, operation) in operations(item) {
            let public = operation
                .security
                .as_ref()
                .is_some_and(|reqs| reqs.iter().all(is_empty_requirement));
            let writes = operation.request_body.is_some() || method != "get";
            for (status, name, _) in ERRORS {
                let applies = match *status {
                    "401" | "403" => !public,
                    // A stored state can refuse a read too (a platform config not
                    // yet authorized), so 409 is everywhere.
                    "413" | "415" => writes,
                    _ => true,
                };
                if applies {
                    operation
                        .responses
                        .responses
                        .entry((*status).to_owned())
                        .or_insert_with(|| {
                            RefOr::Ref(utoipa::openapi::Ref::new(format!(
                                "#/components/responses/{name}"
                            )))
                        });
                }
            }
        }
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

/// A success without a written description gets its status's name (OpenAPI requires
/// one), and each operation is tagged with its resource (`/api/<resource>/...`), which
/// is how the reference page groups them.
fn describe_successes_and_tag(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let tag = path.split('/').nth(2).unwrap_or("api").to_owned();
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for op in item.values_mut() {
            let Some(op) = op.as_object_mut() else {
                continue;
            };
            op.entry("tags")
                .or_insert_with(|| Value::from(vec![tag.clone()]));
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            for (status, response) in responses.iter_mut() {
                let Some(response) = response.as_object_mut() else {
                    continue;
                };
                if response.contains_key("$ref") {
                    continue;
                }
                let missing = response
                    .get("description")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty);
                if missing {
                    let reason = status
                        .parse::<u16>()
                        .ok()
                        .and_then(|s| actix_web::http::StatusCode::from_u16(s).ok())
                        .and_then(|s| s.canonical_reason())
                        .unwrap_or("Success");
                    response.insert("description".into(), reason.into());
                }
            }
        }
    }
}

/// What `hygiene` refuses, the document forbids, so a client (or a fuzzer) reading it
/// knows: no control character in a path or query parameter, no NUL in a JSON string.
/// Strings that already have a format, an enumeration or a pattern say more already.
fn no_control_characters(doc: &mut Value) {
    const PARAMETER: &str = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$";
    const JSON_STRING: &str = "^[^\\u0000]*$";
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut().filter_map(Value::as_object_mut) {
            for op in item.values_mut() {
                if let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) {
                    for param in params {
                        if let Some(schema) = param.get_mut("schema") {
                            constrain_strings(schema, PARAMETER);
                        }
                    }
                }
                if let Some(body) = op.get_mut("requestBody") {
                    constrain_strings(body, JSON_STRING);
                }
            }
        }
    }
    if let Some(schemas) = doc.pointer_mut("/components/schemas") {
        constrain_strings(schemas, JSON_STRING);
    }
}

fn constrain_strings(schema: &mut Value, pattern: &str) {
    match schema {
        Value::Object(map) => {
            let is_string = match map.get("type") {
                Some(Value::String(t)) => t == "string",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
                _ => false,
            };
            let said = ["format", "enum", "pattern", "const"]
                .iter()
                .any(|k| map.contains_key(*k));
            if is_string && !said {
                map.insert("pattern".into(), pattern.into());
            }
            for value in map.values_mut() {
                constrain_strings(value, pattern);
            }
        }
        Value::Array(items) => {
            for value in items {
                constrain_strings(value, pattern);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document whole, against `src/snapshots/`: a change to the API (a route, a field, a
    /// status, a description) shows in review as a diff of that file. A change fails this test
    /// and leaves a `.snap.new` beside the old one; `cargo insta review` (or
    /// `INSTA_UPDATE=always`) accepts it.
    #[test]
    fn the_api_document_reads_as_committed() {
        insta::assert_json_snapshot!("openapi", document());
    }
}
