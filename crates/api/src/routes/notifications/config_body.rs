//! The settings body a POST or PATCH sends, and its parsing into the domain's patch
//! (`***` keeps a stored secret, blank text clears a field).

use super::frequency_schema;
use crate::error::ApiError;
use crate::routes::serde_helpers::double_option;
use reviewd_domain::ErrorCode;
use reviewd_domain::model::notification::{Frequency, NotificationConfigPatch};
use reviewd_domain::model::{MASK, SecretString};
use serde::Deserialize;
use serde::de::IgnoredAny;
use utoipa::ToSchema;
use utoipa::openapi::Object;
use utoipa::openapi::schema::{SchemaType, Type};

/// `notificationFrequency` in a body: one of the frequencies, or null (unchanged).
fn frequency_or_null_schema() -> Object {
    let mut schema = frequency_schema();
    schema.schema_type = SchemaType::from_iter([Type::String, Type::Null]);
    schema.enum_values = Some(
        Frequency::ALL
            .iter()
            .map(|f| serde_json::Value::from(f.as_str()))
            .chain([serde_json::Value::Null])
            .collect(),
    );
    schema.description =
        Some("When notifications go out: at once, or in a daily or weekly digest.".into());
    schema
}

/// A POST (replace: what is left out takes its default) or PATCH (change what is
/// given) body. A secret sent back as `***` (as a GET shows it) means "unchanged";
/// `null` clears a nullable field, and blank text clears it too. Blank entries of a
/// list are dropped.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct NotificationConfigBody {
    email_enabled: Option<bool>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, nullable)]
    smtp_host: Option<Option<String>>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<u16>, nullable, minimum = 1, maximum = 65535)]
    smtp_port: Option<Option<u16>>,
    /// TLS from the first byte when true; STARTTLS when offered when false.
    smtp_secure: Option<bool>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, nullable)]
    smtp_username: Option<Option<String>>,
    /// `***` keeps the stored password.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, nullable)]
    smtp_password: Option<Option<String>>,
    /// An address, optionally with a name: `reviewd <reviewd@example.com>`.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(
        value_type = Option<String>,
        nullable,
        pattern = r#"^[\t\n\v\f\r ]*(?:[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9-]{1,40}(?:\.[A-Za-z0-9-]{1,40}){1,3}|[^<>\u0000-\u001f\u007f]*<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9-]{1,40}(?:\.[A-Za-z0-9-]{1,40}){1,3}>)?[\t\n\v\f\r ]*$"#
    )]
    email_from: Option<Option<String>>,
    /// Email addresses.
    #[schema(
        pattern = r#"^[\t\n\v\f\r ]*(?:[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9-]{1,40}(?:\.[A-Za-z0-9-]{1,40}){1,3})?[\t\n\v\f\r ]*$"#
    )]
    email_recipients: Option<Vec<String>>,
    webhook_enabled: Option<bool>,
    /// http(s) URLs receiving each event as JSON.
    #[schema(schema_with = crate::field_schemas::http_urls)]
    webhook_urls: Option<Vec<String>>,
    /// Signs outbound webhook bodies (HMAC-SHA256); `***` keeps the stored one.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, nullable)]
    webhook_secret: Option<Option<String>>,
    #[serde(rename = "chatAEnabled")]
    chat_a_enabled: Option<bool>,
    /// `***` keeps the stored token.
    #[serde(default, deserialize_with = "double_option", rename = "chatABotToken")]
    #[schema(value_type = Option<String>, nullable)]
    chat_a_bot_token: Option<Option<String>>,
    /// `chatA` channel ids.
    #[serde(rename = "chatAChannels")]
    chat_a_channels: Option<Vec<String>>,
    #[serde(rename = "chatBEnabled")]
    chat_b_enabled: Option<bool>,
    /// An http(s) URL (it embeds a token); `***` keeps the stored one.
    #[serde(
        default,
        deserialize_with = "double_option",
        rename = "chatBWebhookUrl"
    )]
    #[schema(schema_with = crate::field_schemas::secret_http_url)]
    chat_b_webhook_url: Option<Option<String>>,
    #[serde(rename = "chatCEnabled")]
    chat_c_enabled: Option<bool>,
    /// An http(s) URL (it embeds a token); `***` keeps the stored one.
    #[serde(
        default,
        deserialize_with = "double_option",
        rename = "chatCWebhookUrl"
    )]
    #[schema(schema_with = crate::field_schemas::secret_http_url)]
    chat_c_webhook_url: Option<Option<String>>,
    #[serde(rename = "chatDEnabled")]
    chat_d_enabled: Option<bool>,
    /// An http(s) URL (it embeds a token); `***` keeps the stored one.
    #[serde(
        default,
        deserialize_with = "double_option",
        rename = "chatDWebhookUrl"
    )]
    #[schema(schema_with = crate::field_schemas::secret_http_url)]
    chat_d_webhook_url: Option<Option<String>>,
    /// Signs `chatD` messages; `***` keeps the stored one.
    #[serde(default, deserialize_with = "double_option", rename = "chatDSecret")]
    #[schema(value_type = Option<String>, nullable)]
    chat_d_secret: Option<Option<String>>,
    push_enabled: Option<bool>,
    /// `mailto:` or `https://` contact sent to push services.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(
        value_type = Option<String>,
        nullable,
        pattern = r#"^[\t\n\v\f\r ]*(?:(?:mailto:|https://)[!-~]*)?[\t\n\v\f\r ]*$"#
    )]
    vapid_subject: Option<Option<String>>,
    notify_on_review_completed: Option<bool>,
    notify_on_review_failed: Option<bool>,
    notify_on_rating_low: Option<bool>,
    /// A review scoring below this is a `rating_low` event.
    #[schema(minimum = 0, maximum = 100)]
    rating_threshold: Option<i32>,
    #[schema(schema_with = frequency_or_null_schema)]
    notification_frequency: Option<String>,
    // Shown by GET and accepted back unchanged: keys come only from generation.
    /// Ignored (shown by GET; set by generating keys).
    #[serde(default, rename = "vapidPublicKey")]
    #[schema(value_type = Option<Value>)]
    _vapid_public_key: Option<IgnoredAny>,
    /// Ignored (shown by GET; set by generating keys).
    #[serde(default, rename = "vapidPrivateKey")]
    #[schema(value_type = Option<Value>)]
    _vapid_private_key: Option<IgnoredAny>,
    /// Ignored (shown by GET).
    #[serde(default, rename = "updatedAt")]
    #[schema(value_type = Option<Value>)]
    _updated_at: Option<IgnoredAny>,
}

/// A secret field: `***` keeps the stored value (`stored`, or absent for a
/// patch), `null` or "" clears it.
/// A secret field: `***` keeps the stored one (`None`: the domain keeps it where
/// it stays), blank or `null` clears it, text replaces it; left out, it is kept by
/// a patch and cleared by a replacement (`replacing`).
fn secret(value: Option<Option<String>>, replacing: bool) -> Option<Option<SecretString>> {
    match value {
        None if replacing => Some(None),
        None => None,
        Some(Some(v)) if v == MASK => None,
        Some(Some(v)) if v.trim().is_empty() => Some(None),
        Some(v) => Some(v.map(SecretString::new)),
    }
}

/// Blank text clears a nullable text field.
fn text(value: Option<Option<String>>) -> Option<Option<String>> {
    value.map(|v| v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()))
}

fn list(value: Option<Vec<String>>) -> Option<Vec<String>> {
    value.map(|v| {
        v.into_iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect()
    })
}

impl NotificationConfigBody {
    /// `replacing` for a replacement (POST), where a field left out is cleared.
    pub(super) fn into_patch(self, replacing: bool) -> Result<NotificationConfigPatch, ApiError> {
        let frequency = self
            .notification_frequency
            .map(|f| {
                Frequency::parse(&f).ok_or_else(|| {
                    ApiError::bad_request(
                        ErrorCode::ValidationFailed,
                        "notificationFrequency must be immediate, daily or weekly",
                    )
                })
            })
            .transpose()?;
        Ok(NotificationConfigPatch {
            email_enabled: self.email_enabled,
            smtp_host: text(self.smtp_host),
            smtp_port: self.smtp_port,
            smtp_secure: self.smtp_secure,
            smtp_username: text(self.smtp_username),
            smtp_password: secret(self.smtp_password, replacing),
            email_from: text(self.email_from),
            email_recipients: list(self.email_recipients),
            webhook_enabled: self.webhook_enabled,
            webhook_urls: list(self.webhook_urls),
            webhook_secret: secret(self.webhook_secret, replacing),
            slack_enabled: self.chat_a_enabled,
            slack_bot_token: secret(self.chat_a_bot_token, replacing),
            slack_channels: list(self.chat_a_channels),
            discord_enabled: self.chat_b_enabled,
            discord_webhook_url: secret(self.chat_b_webhook_url, replacing),
            teams_enabled: self.chat_c_enabled,
            teams_webhook_url: secret(self.chat_c_webhook_url, replacing),
            feishu_enabled: self.chat_d_enabled,
            feishu_webhook_url: secret(self.chat_d_webhook_url, replacing),
            feishu_secret: secret(self.chat_d_secret, replacing),
            push_enabled: self.push_enabled,
            vapid_subject: text(self.vapid_subject),
            notify_on_review_completed: self.notify_on_review_completed,
            notify_on_review_failed: self.notify_on_review_failed,
            notify_on_rating_low: self.notify_on_rating_low,
            rating_threshold: self.rating_threshold,
            notification_frequency: frequency,
        })
    }
}
