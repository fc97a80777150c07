//! Schemas of the API document's shared field types (string enums, dates, URLs, push
//! endpoints), used by the DTOs as `#[schema(schema_with = ...)]`. A leaf: the routes use it
//! and the document (`openapi`) reads the routes, so it must not live in `openapi`.

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

/// The http(s) URLs the document promises to take (`reviewd_domain::http_url::parse`
/// takes more): letters-first host names or a dotted IPv4 address, an optional port and
/// a plain path. Narrower than the server on purpose, so that anything a client or a
/// fuzzer builds from the pattern is a URL the server accepts.
const HTTP_URL: &str = r"https?://(?:[A-Za-z][A-Za-z0-9-]{0,30}(?:\.[A-Za-z][A-Za-z0-9-]{0,30}){0,4}|(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9]))(?::[1-9][0-9]{0,3})?(?:/[A-Za-z0-9._~-]{0,30}){0,8}";

/// A push service's URL: https, and a public name (the server refuses private hosts).
const PUBLIC_HTTPS_URL: &str = r"https://(?:[A-Za-z][A-Za-z0-9-]{0,30}\.){1,4}(?:com|net|org)(?::[1-9][0-9]{0,3})?(?:/[A-Za-z0-9._~-]{0,30}){0,8}";

/// Blanks the notification settings trim away (ASCII white space).
const BLANKS: &str = r"[\t\n\v\f\r ]*";

fn string_with_pattern(pattern: String) -> utoipa::openapi::ObjectBuilder {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .pattern(Some(pattern))
}

/// A platform's base URL.
#[must_use]
pub fn base_url() -> utoipa::openapi::Object {
    string_with_pattern(format!("^{HTTP_URL}$"))
        .max_length(Some(2000))
        .description(Some("An http(s) URL; stored without trailing slashes."))
        .build()
}

/// A list of http(s) URLs, each may be surrounded by blanks or blank (then dropped).
#[must_use]
pub fn http_urls() -> utoipa::openapi::Array {
    utoipa::openapi::ArrayBuilder::new()
        .schema_type(utoipa::openapi::schema::SchemaType::from_iter([
            utoipa::openapi::Type::Array,
            utoipa::openapi::Type::Null,
        ]))
        .items(string_with_pattern(format!(
            "^{BLANKS}(?:{HTTP_URL})?{BLANKS}$"
        )))
        .build()
}

/// A secret http(s) URL: `***` keeps the stored one, blank or `null` removes it.
#[must_use]
pub fn secret_http_url() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::SchemaType::from_iter([
            utoipa::openapi::Type::String,
            utoipa::openapi::Type::Null,
        ]))
        .pattern(Some(format!(r"^(?:\*\*\*|{BLANKS}|{HTTP_URL})$")))
        .build()
}

/// A browser push subscription's endpoint.
#[must_use]
pub fn push_endpoint() -> utoipa::openapi::Object {
    string_with_pattern(format!("^{PUBLIC_HTTPS_URL}$"))
        .max_length(Some(2048))
        .build()
}

/// A date filter (`extract::dates`): a plain date (`2026-01-31`) or an RFC 3339
/// date-time. Use as `#[param(schema_with = date_or_datetime)]`.
#[must_use]
pub fn date_or_datetime() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
    let one_of = utoipa::openapi::schema::OneOfBuilder::new()
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
        .build();
    utoipa::openapi::schema::Schema::OneOf(one_of)
}
