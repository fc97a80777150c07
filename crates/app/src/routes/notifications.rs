//! Notifications: settings (secrets masked), test deliveries, VAPID keys, the
//! delivery history with its statistics, and browser push subscriptions.

use super::serde_helpers::double_option;
use crate::envelope;
use crate::error::ApiError;
use crate::extract::perm::{ConfigUpdate, NotificationDelete};
use crate::extract::{AuthUser, PageParams, RequirePermission, choice, date_from, date_until};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::notification::{
    Channel, DeliveryCount, DeliveryStatus, Frequency, HistoryFilter, NewPushSubscription,
    NotificationConfig, NotificationConfigPatch, NotificationType, PushSubscription,
};
use reviewd_domain::model::{MASK, SecretString};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use utoipa_actix_web::service_config::ServiceConfig;
use uuid::Uuid;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.route("/notifications", web::get().to(list_history))
        .route("/notifications/config", web::get().to(get_config))
        .route("/notifications/config", web::post().to(replace_config))
        .route("/notifications/config", web::patch().to(update_config))
        .route(
            "/notifications/config/test-channel",
            web::post().to(test_channel),
        )
        .route(
            "/notifications/config/generate-vapid-keys",
            web::post().to(generate_vapid_keys),
        )
        .route("/notifications/history/{id}", web::get().to(get_record))
        .route("/notifications/stats", web::get().to(stats))
        .route("/notifications/pending", web::get().to(pending))
        .route("/notifications/failed", web::get().to(failed))
        .route("/notifications/clean", web::post().to(clean))
        .route("/notifications/push/subscribe", web::post().to(subscribe))
        .route(
            "/notifications/push/subscriptions",
            web::get().to(subscriptions),
        )
        .route(
            "/notifications/push/users/{user_id}",
            web::get().to(user_subscriptions),
        )
        .route("/notifications/push/touch", web::post().to(touch))
        .route(
            "/notifications/push/unsubscribe",
            web::delete().to(unsubscribe),
        )
        .route("/notifications/push/clean", web::post().to(clean_push));
}

fn masked(secret: Option<&SecretString>) -> Value {
    secret.map_or(Value::Null, |_| Value::String(MASK.to_owned()))
}

/// The settings as the API shows them: every secret `***` (or null when unset).
fn config_view(c: &NotificationConfig) -> Value {
    json!({
        "emailEnabled": c.email_enabled,
        "smtpHost": c.smtp_host,
        "smtpPort": c.smtp_port,
        "smtpSecure": c.smtp_secure,
        "smtpUsername": c.smtp_username,
        "smtpPassword": masked(c.smtp_password.as_ref()),
        "emailFrom": c.email_from,
        "emailRecipients": c.email_recipients,
        "webhookEnabled": c.webhook_enabled,
        "webhookUrls": c.webhook_urls,
        "webhookSecret": masked(c.webhook_secret.as_ref()),
        "chatAEnabled": c.chat_a_enabled,
        "chatABotToken": masked(c.chat_a_bot_token.as_ref()),
        "chatAChannels": c.chat_a_channels,
        "chatBEnabled": c.chat_b_enabled,
        "chatBWebhookUrl": masked(c.chat_b_webhook_url.as_ref()),
        "chatCEnabled": c.chat_c_enabled,
        "chatCWebhookUrl": masked(c.chat_c_webhook_url.as_ref()),
        "chatDEnabled": c.chat_d_enabled,
        "chatDWebhookUrl": masked(c.chat_d_webhook_url.as_ref()),
        "chatDSecret": masked(c.chat_d_secret.as_ref()),
        "pushEnabled": c.push_enabled,
        "vapidPublicKey": c.vapid_public_key,
        "vapidPrivateKey": masked(c.vapid_private_key.as_ref()),
        "vapidSubject": c.vapid_subject,
        "notifyOnReviewCompleted": c.notify_on_review_completed,
        "notifyOnReviewFailed": c.notify_on_review_failed,
        "notifyOnRatingLow": c.notify_on_rating_low,
        "ratingThreshold": c.rating_threshold,
        "notificationFrequency": c.notification_frequency.as_str(),
        "updatedAt": c.updated_at,
    })
}

/// A POST or PATCH body. A secret sent back as `***` (as a GET shows it) means
/// "unchanged"; `null` clears a nullable field.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ConfigBody {
    email_enabled: Option<bool>,
    #[serde(default, deserialize_with = "double_option")]
    smtp_host: Option<Option<String>>,
    #[serde(default, deserialize_with = "double_option")]
    smtp_port: Option<Option<u16>>,
    smtp_secure: Option<bool>,
    #[serde(default, deserialize_with = "double_option")]
    smtp_username: Option<Option<String>>,
    #[serde(default, deserialize_with = "double_option")]
    smtp_password: Option<Option<String>>,
    #[serde(default, deserialize_with = "double_option")]
    email_from: Option<Option<String>>,
    email_recipients: Option<Vec<String>>,
    webhook_enabled: Option<bool>,
    webhook_urls: Option<Vec<String>>,
    #[serde(default, deserialize_with = "double_option")]
    webhook_secret: Option<Option<String>>,
    #[serde(rename = "chatAEnabled")]
    chat_a_enabled: Option<bool>,
    #[serde(default, deserialize_with = "double_option", rename = "chatABotToken")]
    chat_a_bot_token: Option<Option<String>>,
    #[serde(rename = "chatAChannels")]
    chat_a_channels: Option<Vec<String>>,
    #[serde(rename = "chatBEnabled")]
    chat_b_enabled: Option<bool>,
    #[serde(
        default,
        deserialize_with = "double_option",
        rename = "chatBWebhookUrl"
    )]
    chat_b_webhook_url: Option<Option<String>>,
    #[serde(rename = "chatCEnabled")]
    chat_c_enabled: Option<bool>,
    #[serde(
        default,
        deserialize_with = "double_option",
        rename = "chatCWebhookUrl"
    )]
    chat_c_webhook_url: Option<Option<String>>,
    #[serde(rename = "chatDEnabled")]
    chat_d_enabled: Option<bool>,
    #[serde(
        default,
        deserialize_with = "double_option",
        rename = "chatDWebhookUrl"
    )]
    chat_d_webhook_url: Option<Option<String>>,
    #[serde(default, deserialize_with = "double_option", rename = "chatDSecret")]
    chat_d_secret: Option<Option<String>>,
    push_enabled: Option<bool>,
    #[serde(default, deserialize_with = "double_option")]
    vapid_subject: Option<Option<String>>,
    notify_on_review_completed: Option<bool>,
    notify_on_review_failed: Option<bool>,
    notify_on_rating_low: Option<bool>,
    rating_threshold: Option<i32>,
    notification_frequency: Option<String>,
    // Shown by GET and accepted back unchanged: keys come only from generation.
    #[serde(default, rename = "vapidPublicKey")]
    _vapid_public_key: Option<IgnoredAny>,
    #[serde(default, rename = "vapidPrivateKey")]
    _vapid_private_key: Option<IgnoredAny>,
    #[serde(default, rename = "updatedAt")]
    _updated_at: Option<IgnoredAny>,
}

/// A secret field: `***` keeps the stored value (`stored`, or absent for a
/// patch), `null` or "" clears it.
fn secret(
    value: Option<Option<String>>,
    stored: Option<&Option<SecretString>>,
) -> Option<Option<SecretString>> {
    match value {
        None => None,
        Some(Some(v)) if v == MASK => stored.cloned(),
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

impl ConfigBody {
    /// `stored` is the current config when replacing (POST): a secret sent as
    /// `***` then carries over; a patch leaves it alone anyway.
    fn into_patch(
        self,
        stored: Option<&NotificationConfig>,
    ) -> Result<NotificationConfigPatch, ApiError> {
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
            smtp_password: secret(self.smtp_password, stored.map(|c| &c.smtp_password)),
            email_from: text(self.email_from),
            email_recipients: list(self.email_recipients),
            webhook_enabled: self.webhook_enabled,
            webhook_urls: list(self.webhook_urls),
            webhook_secret: secret(self.webhook_secret, stored.map(|c| &c.webhook_secret)),
            chat_a_enabled: self.chat_a_enabled,
            chat_a_bot_token: secret(self.chat_a_bot_token, stored.map(|c| &c.chat_a_bot_token)),
            chat_a_channels: list(self.chat_a_channels),
            chat_b_enabled: self.chat_b_enabled,
            chat_b_webhook_url: secret(
                self.chat_b_webhook_url,
                stored.map(|c| &c.chat_b_webhook_url),
            ),
            chat_c_enabled: self.chat_c_enabled,
            chat_c_webhook_url: secret(
                self.chat_c_webhook_url,
                stored.map(|c| &c.chat_c_webhook_url),
            ),
            chat_d_enabled: self.chat_d_enabled,
            chat_d_webhook_url: secret(
                self.chat_d_webhook_url,
                stored.map(|c| &c.chat_d_webhook_url),
            ),
            chat_d_secret: secret(self.chat_d_secret, stored.map(|c| &c.chat_d_secret)),
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

async fn get_config(state: web::Data<AppState>, _user: AuthUser) -> Result<HttpResponse, ApiError> {
    let config = state.notifications.config().await?;
    Ok(envelope::ok(json!({ "config": config_view(&config) })))
}

async fn replace_config(
    state: web::Data<AppState>,
    _user: RequirePermission<ConfigUpdate>,
    body: web::Json<ConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let stored = state.notifications.config().await?;
    let config = state
        .notifications
        .replace(body.into_inner().into_patch(Some(&stored))?)
        .await?;
    Ok(envelope::ok(json!({ "config": config_view(&config) })))
}

async fn update_config(
    state: web::Data<AppState>,
    _user: RequirePermission<ConfigUpdate>,
    body: web::Json<ConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let config = state
        .notifications
        .update(body.into_inner().into_patch(None)?)
        .await?;
    Ok(envelope::ok(json!({ "config": config_view(&config) })))
}

fn channel(value: &str) -> Result<Channel, ApiError> {
    Channel::parse(value).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::ValidationFailed,
            "channel must be email, webhook, chatA, chatB, chatC, chatD or push",
        )
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TestBody {
    channel: String,
}

async fn test_channel(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: web::Json<TestBody>,
) -> Result<HttpResponse, ApiError> {
    let result = state
        .notifications
        .test_channel(channel(&body.channel)?)
        .await?;
    Ok(envelope::ok(json!({ "result": result })))
}

async fn generate_vapid_keys(
    state: web::Data<AppState>,
    _user: RequirePermission<ConfigUpdate>,
) -> Result<HttpResponse, ApiError> {
    let keys = state.notifications.generate_vapid_keys().await?;
    Ok(envelope::ok(json!({ "keys": {
        "publicKey": keys.public_key,
        "privateKey": keys.private_key.expose(),
    }})))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistoryQuery {
    channel: Option<String>,
    status: Option<String>,
    notification_type: Option<String>,
    review_id: Option<String>,
    start_date: Option<String>,
    end_date: Option<String>,
    #[serde(flatten)]
    page: PageParams,
}

fn query_error(message: &str) -> ApiError {
    ApiError::bad_request(ErrorCode::InvalidQuery, message)
}

/// The wire names of an enumeration, for the error that lists them.
fn names<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|v| name(*v)).collect()
}

impl HistoryQuery {
    fn filter(&self) -> Result<HistoryFilter, ApiError> {
        Ok(HistoryFilter {
            channel: choice(
                "channel",
                self.channel.as_deref(),
                &names(Channel::ALL, |c| c.as_str()),
                Channel::parse,
            )?,
            status: choice(
                "status",
                self.status.as_deref(),
                &names(DeliveryStatus::ALL, |s| s.as_str()),
                DeliveryStatus::parse,
            )?,
            notification_type: choice(
                "notificationType",
                self.notification_type.as_deref(),
                &names(NotificationType::ALL, |t| t.as_str()),
                NotificationType::parse,
            )?,
            review_id: self
                .review_id
                .as_deref()
                .map(|r| Uuid::parse_str(r).map_err(|_| query_error("reviewId must be a UUID")))
                .transpose()?,
            start: date_from("startDate", self.start_date.as_deref())?,
            end: date_until("endDate", self.end_date.as_deref())?,
        })
    }
}

async fn list_history(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<HistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = q.page.to_request(20, 100)?;
    let history = state.notifications.history(&q.filter()?, page).await?;
    Ok(envelope::paginated(history, |r| r))
}

async fn by_status(
    state: &AppState,
    status: DeliveryStatus,
    page: &PageParams,
) -> Result<HttpResponse, ApiError> {
    let filter = HistoryFilter {
        status: Some(status),
        ..HistoryFilter::default()
    };
    let history = state
        .notifications
        .history(&filter, page.to_request(50, 100)?)
        .await?;
    Ok(envelope::paginated(history, |r| r))
}

async fn pending(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    by_status(&state, DeliveryStatus::Pending, &q).await
}

async fn failed(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    by_status(&state, DeliveryStatus::Failed, &q).await
}

async fn get_record(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let record = state.notifications.record(*id).await?;
    Ok(envelope::ok(json!({ "notification": record })))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatsQuery {
    start_date: Option<String>,
    end_date: Option<String>,
}

/// Counts by channel and status, with totals per channel and per status.
fn stats_view(counts: &[DeliveryCount]) -> Value {
    let mut by_channel: BTreeMap<&str, BTreeMap<&str, i64>> = BTreeMap::new();
    let mut by_status: BTreeMap<&str, i64> = DeliveryStatus::ALL
        .iter()
        .map(|s| (s.as_str(), 0))
        .collect();
    for c in counts {
        *by_channel
            .entry(c.channel.as_str())
            .or_insert_with(|| {
                DeliveryStatus::ALL
                    .iter()
                    .map(|s| (s.as_str(), 0))
                    .collect()
            })
            .entry(c.status.as_str())
            .or_default() += c.count;
        *by_status.entry(c.status.as_str()).or_default() += c.count;
    }
    json!({
        "total": counts.iter().map(|c| c.count).sum::<i64>(),
        "byChannel": by_channel,
        "byStatus": by_status,
        "items": counts,
    })
}

async fn stats(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<StatsQuery>,
) -> Result<HttpResponse, ApiError> {
    let start = date_from("startDate", q.start_date.as_deref())?;
    let end = date_until("endDate", q.end_date.as_deref())?;
    let counts = state.notifications.stats(start, end).await?;
    Ok(envelope::ok(json!({ "stats": stats_view(&counts) })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CleanBody {
    days: i64,
}

async fn clean(
    state: web::Data<AppState>,
    _user: RequirePermission<NotificationDelete>,
    body: web::Json<CleanBody>,
) -> Result<HttpResponse, ApiError> {
    let deleted = state.notifications.clean(body.days).await?;
    Ok(envelope::ok(json!({ "deleted": deleted })))
}

/// A subscription as listed: the browser's encryption keys are not shown.
fn subscription_view(s: &PushSubscription) -> Value {
    json!({
        "id": s.id,
        "userId": s.user_id,
        "endpoint": s.endpoint,
        "userAgent": s.user_agent,
        "createdAt": s.created_at,
        "lastUsedAt": s.last_used_at,
        "expiresAt": s.expires_at,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SubscriptionKeys {
    p256dh: String,
    auth: String,
}

/// `PushSubscription.toJSON()` as a browser gives it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SubscribeBody {
    endpoint: String,
    keys: SubscriptionKeys,
    /// When the push service ends the subscription, in milliseconds since the
    /// epoch (usually null).
    #[serde(default)]
    expiration_time: Option<f64>,
}

async fn subscribe(
    state: web::Data<AppState>,
    user: AuthUser,
    req: HttpRequest,
    body: web::Json<SubscribeBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let subscription = state
        .notifications
        .subscribe(NewPushSubscription {
            user_id: user.0.user.id,
            endpoint: body.endpoint.trim().to_owned(),
            p256dh: body.keys.p256dh.trim().to_owned(),
            auth: body.keys.auth.trim().to_owned(),
            user_agent: req
                .headers()
                .get("user-agent")
                .and_then(|v| v.to_str().ok())
                .map(|s| s.chars().take(500).collect()),
            expires_at: body
                .expiration_time
                .map(|ms| {
                    #[allow(clippy::cast_possible_truncation)]
                    chrono::DateTime::from_timestamp_millis(ms as i64).ok_or_else(|| {
                        ApiError::bad_request(
                            ErrorCode::ValidationFailed,
                            "expirationTime must be milliseconds since 1970 or null",
                        )
                    })
                })
                .transpose()?,
        })
        .await?;
    // 200 as the contract has it (a repeated subscription updates the stored one).
    Ok(envelope::ok(json!({
        "subscription": subscription_view(&subscription)
    })))
}

async fn subscriptions(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let subs = state.notifications.subscriptions(None).await?;
    Ok(envelope::ok(
        subs.iter().map(subscription_view).collect::<Vec<_>>(),
    ))
}

async fn user_subscriptions(
    state: web::Data<AppState>,
    _user: AuthUser,
    user_id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let subs = state.notifications.subscriptions(Some(*user_id)).await?;
    Ok(envelope::ok(
        subs.iter().map(subscription_view).collect::<Vec<_>>(),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EndpointBody {
    endpoint: String,
}

async fn touch(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: web::Json<EndpointBody>,
) -> Result<HttpResponse, ApiError> {
    state.notifications.touch(body.endpoint.trim()).await?;
    Ok(envelope::ok(json!({ "touched": true })))
}

async fn unsubscribe(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: web::Json<EndpointBody>,
) -> Result<HttpResponse, ApiError> {
    state
        .notifications
        .unsubscribe(body.endpoint.trim())
        .await?;
    Ok(envelope::ok(json!({ "unsubscribed": true })))
}

async fn clean_push(
    state: web::Data<AppState>,
    _user: RequirePermission<NotificationDelete>,
) -> Result<HttpResponse, ApiError> {
    let deleted = state.notifications.clean_subscriptions().await?;
    Ok(envelope::ok(json!({ "deleted": deleted })))
}
