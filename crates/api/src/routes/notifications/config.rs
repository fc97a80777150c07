//! The notification settings: reading them (every secret masked), replacing or
//! changing them, and generating VAPID keys.

use super::config_body::NotificationConfigBody;
use super::frequency_schema;
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::perm::ConfigUpdate;
use crate::extract::{AuthUser, RequirePermission};
use crate::state::AppState;
use actix_web::{HttpResponse, get, patch, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::model::notification::{NotificationConfig, VapidKeys};
use reviewd_domain::model::{MASK, SecretString};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa::openapi::schema::{SchemaType, Type};
use utoipa::openapi::{Object, ObjectBuilder};

/// The notification settings, every secret masked.
#[utoipa::path(responses((status = 200, body = Data<NotificationConfigView>)))]
#[get("/config")]
pub(super) async fn get_notification_config(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let config = state.notifications.config().await?;
    Ok(envelope::ok(NotificationConfigView::from(config)))
}

/// Replaces the notification settings: what the body leaves out takes its default
/// (the VAPID keys stay).
#[utoipa::path(
    request_body = NotificationConfigBody,
    responses((status = 200, body = Data<NotificationConfigView>))
)]
#[post("/config")]
pub(super) async fn replace_notification_config(
    state: web::Data<AppState>,
    _user: RequirePermission<ConfigUpdate>,
    body: web::Json<NotificationConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let config = state
        .notifications
        .replace(body.into_inner().into_patch(true)?)
        .await?;
    Ok(envelope::ok(NotificationConfigView::from(config)))
}

/// Changes the notification settings the body names.
#[utoipa::path(
    request_body = NotificationConfigBody,
    responses((status = 200, body = Data<NotificationConfigView>))
)]
#[patch("/config")]
pub(super) async fn update_notification_config(
    state: web::Data<AppState>,
    _user: RequirePermission<ConfigUpdate>,
    body: web::Json<NotificationConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let config = state
        .notifications
        .update(body.into_inner().into_patch(false)?)
        .await?;
    Ok(envelope::ok(NotificationConfigView::from(config)))
}

/// Generates and stores a new VAPID key pair; the private key is shown this once.
#[utoipa::path(responses((status = 200, body = Data<VapidKeysView>)))]
#[post("/config/generate-vapid-keys")]
pub(super) async fn generate_vapid_keys(
    state: web::Data<AppState>,
    _user: RequirePermission<ConfigUpdate>,
) -> Result<HttpResponse, ApiError> {
    let keys = state.notifications.generate_vapid_keys().await?;
    Ok(envelope::ok(VapidKeysView::from(keys)))
}

/// A secret as shown: `***` when set, `null` when not.
fn masked_secret_schema() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some([
            serde_json::Value::from(MASK),
            serde_json::Value::Null,
        ]))
        .description(Some(
            "`***` when set (the value is never shown), null when not.",
        ))
        .build()
}

fn masked(secret: Option<&SecretString>) -> Option<&'static str> {
    secret.map(|_| MASK)
}

/// The notification settings as the API shows them: every secret `***` (or null
/// when unset). Send a secret back as `***` to keep it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct NotificationConfigDto {
    #[serde(rename = "chatABotToken")]
    #[schema(schema_with = masked_secret_schema)]
    chat_a_bot_token: Option<&'static str>,
    /// `chatA` channel ids.
    #[serde(rename = "chatAChannels")]
    chat_a_channels: Vec<String>,
    #[serde(rename = "chatAEnabled")]
    chat_a_enabled: bool,
    #[serde(rename = "chatBEnabled")]
    chat_b_enabled: bool,
    #[serde(rename = "chatBWebhookUrl")]
    #[schema(schema_with = masked_secret_schema)]
    chat_b_webhook_url: Option<&'static str>,
    #[serde(rename = "chatCEnabled")]
    chat_c_enabled: bool,
    #[serde(rename = "chatCWebhookUrl")]
    #[schema(schema_with = masked_secret_schema)]
    chat_c_webhook_url: Option<&'static str>,
    #[serde(rename = "chatDEnabled")]
    chat_d_enabled: bool,
    #[serde(rename = "chatDSecret")]
    #[schema(schema_with = masked_secret_schema)]
    chat_d_secret: Option<&'static str>,
    #[serde(rename = "chatDWebhookUrl")]
    #[schema(schema_with = masked_secret_schema)]
    chat_d_webhook_url: Option<&'static str>,
    email_enabled: bool,
    email_from: Option<String>,
    email_recipients: Vec<String>,
    #[schema(schema_with = frequency_schema)]
    notification_frequency: &'static str,
    notify_on_rating_low: bool,
    notify_on_review_completed: bool,
    notify_on_review_failed: bool,
    push_enabled: bool,
    /// A review scoring below this (0 to 100) is a `rating_low` event.
    rating_threshold: i32,
    smtp_host: Option<String>,
    #[schema(schema_with = masked_secret_schema)]
    smtp_password: Option<&'static str>,
    #[schema(minimum = 1, maximum = 65535)]
    smtp_port: Option<u16>,
    /// TLS from the first byte when true; STARTTLS when offered when false.
    smtp_secure: bool,
    smtp_username: Option<String>,
    updated_at: Option<DateTime<Utc>>,
    #[schema(schema_with = masked_secret_schema)]
    vapid_private_key: Option<&'static str>,
    /// Browsers take it as `applicationServerKey` (base64url, no padding).
    vapid_public_key: Option<String>,
    /// `mailto:` or `https:` contact sent to push services.
    vapid_subject: Option<String>,
    webhook_enabled: bool,
    /// Signs outbound webhook bodies (HMAC-SHA256) when set.
    #[schema(schema_with = masked_secret_schema)]
    webhook_secret: Option<&'static str>,
    webhook_urls: Vec<String>,
}

impl From<NotificationConfig> for NotificationConfigDto {
    fn from(c: NotificationConfig) -> Self {
        Self {
            chat_a_bot_token: masked(c.slack_bot_token.as_ref()),
            chat_a_channels: c.slack_channels,
            chat_a_enabled: c.slack_enabled,
            chat_b_enabled: c.discord_enabled,
            chat_b_webhook_url: masked(c.discord_webhook_url.as_ref()),
            chat_c_enabled: c.teams_enabled,
            chat_c_webhook_url: masked(c.teams_webhook_url.as_ref()),
            chat_d_enabled: c.feishu_enabled,
            chat_d_secret: masked(c.feishu_secret.as_ref()),
            chat_d_webhook_url: masked(c.feishu_webhook_url.as_ref()),
            email_enabled: c.email_enabled,
            email_from: c.email_from,
            email_recipients: c.email_recipients,
            notification_frequency: c.notification_frequency.as_str(),
            notify_on_rating_low: c.notify_on_rating_low,
            notify_on_review_completed: c.notify_on_review_completed,
            notify_on_review_failed: c.notify_on_review_failed,
            push_enabled: c.push_enabled,
            rating_threshold: c.rating_threshold,
            smtp_host: c.smtp_host,
            smtp_password: masked(c.smtp_password.as_ref()),
            smtp_port: c.smtp_port,
            smtp_secure: c.smtp_secure,
            smtp_username: c.smtp_username,
            updated_at: c.updated_at,
            vapid_private_key: masked(c.vapid_private_key.as_ref()),
            vapid_public_key: c.vapid_public_key,
            vapid_subject: c.vapid_subject,
            webhook_enabled: c.webhook_enabled,
            webhook_secret: masked(c.webhook_secret.as_ref()),
            webhook_urls: c.webhook_urls,
        }
    }
}

/// `{"config": {...}}`.
#[derive(Serialize, ToSchema)]
struct NotificationConfigView {
    config: NotificationConfigDto,
}

impl From<NotificationConfig> for NotificationConfigView {
    fn from(c: NotificationConfig) -> Self {
        Self { config: c.into() }
    }
}

/// A new VAPID key pair, base64url without padding. The private key is shown this
/// once; the settings show it as `***` from then on.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct VapidKeysDto {
    private_key: String,
    public_key: String,
}

/// `{"keys": {...}}`.
#[derive(Serialize, ToSchema)]
struct VapidKeysView {
    keys: VapidKeysDto,
}

impl From<VapidKeys> for VapidKeysView {
    fn from(k: VapidKeys) -> Self {
        Self {
            keys: VapidKeysDto {
                private_key: k.private_key.expose().to_owned(),
                public_key: k.public_key,
            },
        }
    }
}
