//! `/api/platform-configs`: connections to hostA/hostB instances. The DTOs and the
//! routing are here; the handlers are grouped by what they do.

mod connection;
mod oauth;
mod read;
mod write;

use super::dto::{masked_secret_schema, nullable_string_enum};
use crate::field_schemas::string_enum;
use chrono::{DateTime, Utc};
use connection::{search_host_a_users, test_platform_connection};
use oauth::{finish_platform_oauth, refresh_platform_oauth, start_platform_oauth};
use read::{
    get_default_platform_config, get_platform_access_token, get_platform_config,
    list_enabled_platform_configs, list_platform_configs, list_platform_configs_by_type,
};
use reviewd_domain::model::{AuthType, MASK, PlatformConfig, PlatformType, SecretString};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa::openapi::schema::{ObjectBuilder, SchemaFormat, Type};
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use write::{
    create_platform_config, delete_platform_config, set_default_platform_config,
    update_platform_config,
};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/platform-configs")
            .service(list_platform_configs)
            .service(create_platform_config)
            .service(list_enabled_platform_configs)
            .service(get_default_platform_config)
            .service(test_platform_connection)
            .service(list_platform_configs_by_type)
            .service(start_platform_oauth)
            .service(finish_platform_oauth)
            .service(refresh_platform_oauth)
            .service(get_platform_config)
            .service(update_platform_config)
            .service(delete_platform_config)
            .service(set_default_platform_config)
            .service(get_platform_access_token)
            .service(search_host_a_users),
    );
}

// Patterns of the text fields the service trims and checks (written out in each
// `pattern`, which takes only a literal). `W` is the set of characters Rust's `trim`
// removes (Unicode White_Space): `[\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a
// \u2028\u2029\u202f\u205f\u3000]`. No pattern lets the NUL character through (the
// edge refuses it, see `hygiene`).
// - not blank: `^[^NUL]*[^NUL W][^NUL]*$`, at least one character outside `W`.
// Base URLs are `crate::field_schemas::base_url`.

/// `hostA` (GitLab-compatible) or `hostB` (GitHub-compatible).
fn platform_type_schema() -> utoipa::openapi::Object {
    string_enum(PlatformType::ALL.iter().map(|t| t.as_str()))
}

/// A platform type, or `null` (absent).
fn nullable_platform_type_schema() -> utoipa::openapi::Object {
    nullable_string_enum(PlatformType::ALL.iter().map(|t| t.as_str()))
}

/// `token` (an access token) or `oauth` (an OAuth application).
fn auth_type_schema() -> utoipa::openapi::Object {
    string_enum(AuthType::ALL.iter().map(|t| t.as_str()))
}

/// An auth type, or `null` (absent: `token`, or unchanged on update).
fn nullable_auth_type_schema() -> utoipa::openapi::Object {
    nullable_string_enum(AuthType::ALL.iter().map(|t| t.as_str()))
}

/// An absolute URI (`url::Url::parse` takes it).
fn uri_schema() -> utoipa::openapi::Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(SchemaFormat::Custom("uri".to_owned())))
        .build()
}

/// The `{platform_type}` path segment: `hostA` or `hostB`.
struct PlatformTypeName;

impl utoipa::PartialSchema for PlatformTypeName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        platform_type_schema().into()
    }
}

impl ToSchema for PlatformTypeName {}

/// A config as every response shows it: secrets replaced by `***` (or null when unset).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlatformConfigDto {
    id: Uuid,
    name: String,
    #[schema(schema_with = platform_type_schema)]
    platform_type: &'static str,
    /// The instance's URL, without trailing slash.
    base_url: String,
    #[schema(schema_with = auth_type_schema)]
    auth_type: &'static str,
    #[schema(schema_with = masked_secret_schema)]
    access_token: Option<&'static str>,
    /// The OAuth application's id.
    app_id: Option<String>,
    #[schema(schema_with = masked_secret_schema)]
    app_secret: Option<&'static str>,
    #[schema(schema_with = masked_secret_schema)]
    webhook_secret: Option<&'static str>,
    /// `app` configs: the GitHub App's private key, never shown.
    #[schema(schema_with = masked_secret_schema)]
    private_key: Option<&'static str>,
    /// `app` configs: the one installation used; `null` for every installation.
    installation_id: Option<i64>,
    /// Whether an OAuth refresh token is stored.
    has_refresh_token: bool,
    /// When the OAuth access token expires.
    token_expires_at: Option<DateTime<Utc>>,
    /// The token's scopes, as the platform reported them.
    token_scopes: Vec<String>,
    enabled: bool,
    /// Each platform type has one default config.
    is_default: bool,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

fn mask(secret: Option<&SecretString>) -> Option<&'static str> {
    secret.map(|_| MASK)
}

impl From<PlatformConfig> for PlatformConfigDto {
    fn from(c: PlatformConfig) -> Self {
        PlatformConfigDto {
            access_token: mask(c.access_token.as_ref()),
            app_secret: mask(c.app_secret.as_ref()),
            webhook_secret: mask(c.webhook_secret.as_ref()),
            private_key: mask(c.private_key.as_ref()),
            installation_id: c.installation_id,
            has_refresh_token: c.refresh_token.is_some(),
            id: c.id,
            name: c.name,
            platform_type: c.platform_type.as_str(),
            base_url: c.base_url,
            auth_type: c.auth_type.as_str(),
            app_id: c.app_id,
            token_expires_at: c.token_expires_at,
            token_scopes: c.token_scopes,
            enabled: c.enabled,
            is_default: c.is_default,
            created_at: c.created_at,
            updated_at: c.updated_at,
        }
    }
}

fn dtos(configs: Vec<PlatformConfig>) -> Vec<PlatformConfigDto> {
    configs.into_iter().map(PlatformConfigDto::from).collect()
}

/// `{"config": {...}}`: one config.
#[derive(Serialize, ToSchema)]
pub struct PlatformConfigEnvelope {
    config: PlatformConfigDto,
}

impl From<PlatformConfig> for PlatformConfigEnvelope {
    fn from(c: PlatformConfig) -> Self {
        PlatformConfigEnvelope { config: c.into() }
    }
}
