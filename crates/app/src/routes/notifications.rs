//! Notifications: settings (secrets masked), test deliveries, VAPID keys, the
//! delivery history with its statistics, and browser push subscriptions.

use super::notifications_dto::{
    ChannelTestView, NotificationConfigView, NotificationRecordDto, NotificationRecordView,
    NotificationStatsView, NotificationsDeleted, PushSubscriptionDto, PushSubscriptionView,
    PushTouched, PushUnsubscribed, VapidKeysView, channel_schema, delivery_status_schema,
    frequency_schema, notification_type_schema,
};
use super::serde_helpers::double_option;
use crate::envelope::{self, Data, Paginated};
use crate::error::ApiError;
use crate::extract::perm::{ConfigUpdate, NotificationDelete};
use crate::extract::{AuthUser, PageParams, RequirePermission, choice, date_from, date_until};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, delete, get, patch, post, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::notification::{
    Channel, DeliveryStatus, Frequency, HistoryFilter, NewPushSubscription, NotificationConfig,
    NotificationConfigPatch, NotificationType,
};
use reviewd_domain::model::{MASK, SecretString};
use serde::Deserialize;
use serde::de::IgnoredAny;
use utoipa::openapi::Object;
use utoipa::openapi::schema::{SchemaType, Type};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/notifications")
            .service(list_notification_history)
            .service(get_notification_config)
            .service(replace_notification_config)
            .service(update_notification_config)
            .service(test_notification_channel)
            .service(generate_vapid_keys)
            .service(get_notification_record)
            .service(get_notification_stats)
            .service(list_pending_notifications)
            .service(list_failed_notifications)
            .service(clean_notification_history)
            .service(subscribe_push)
            .service(list_push_subscriptions)
            .service(list_user_push_subscriptions)
            .service(touch_push_subscription)
            .service(unsubscribe_push)
            .service(clean_push_subscriptions),
    );
}

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

/// A string schema with a description: for an enumerated query parameter.
fn described(mut schema: Object, description: &str) -> Object {
    schema.description = Some(description.to_owned());
    schema
}

/// A date filter (`crate::openapi::date_or_datetime`) as a parameter's schema.
fn channel_param() -> Object {
    described(channel_schema(), "Only deliveries on this channel.")
}

fn status_param() -> Object {
    described(delivery_status_schema(), "Only deliveries in this state.")
}

fn notification_type_param() -> Object {
    described(notification_type_schema(), "Only deliveries of this event.")
}

/// A POST (replace: what is left out takes its default) or PATCH (change what is
/// given) body. A secret sent back as `***` (as a GET shows it) means "unchanged";
/// `null` clears a nullable field, and blank text clears it too. Blank entries of a
/// list are dropped.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NotificationConfigBody {
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
    #[schema(schema_with = crate::openapi::http_urls)]
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
    #[schema(schema_with = crate::openapi::secret_http_url)]
    chat_b_webhook_url: Option<Option<String>>,
    #[serde(rename = "chatCEnabled")]
    chat_c_enabled: Option<bool>,
    /// An http(s) URL (it embeds a token); `***` keeps the stored one.
    #[serde(
        default,
        deserialize_with = "double_option",
        rename = "chatCWebhookUrl"
    )]
    #[schema(schema_with = crate::openapi::secret_http_url)]
    chat_c_webhook_url: Option<Option<String>>,
    #[serde(rename = "chatDEnabled")]
    chat_d_enabled: Option<bool>,
    /// An http(s) URL (it embeds a token); `***` keeps the stored one.
    #[serde(
        default,
        deserialize_with = "double_option",
        rename = "chatDWebhookUrl"
    )]
    #[schema(schema_with = crate::openapi::secret_http_url)]
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

impl NotificationConfigBody {
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

/// The notification settings, every secret masked.
#[utoipa::path(responses((status = 200, body = Data<NotificationConfigView>)))]
#[get("/config")]
async fn get_notification_config(
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
async fn replace_notification_config(
    state: web::Data<AppState>,
    _user: RequirePermission<ConfigUpdate>,
    body: web::Json<NotificationConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let stored = state.notifications.config().await?;
    let config = state
        .notifications
        .replace(body.into_inner().into_patch(Some(&stored))?)
        .await?;
    Ok(envelope::ok(NotificationConfigView::from(config)))
}

/// Changes the notification settings the body names.
#[utoipa::path(
    request_body = NotificationConfigBody,
    responses((status = 200, body = Data<NotificationConfigView>))
)]
#[patch("/config")]
async fn update_notification_config(
    state: web::Data<AppState>,
    _user: RequirePermission<ConfigUpdate>,
    body: web::Json<NotificationConfigBody>,
) -> Result<HttpResponse, ApiError> {
    let config = state
        .notifications
        .update(body.into_inner().into_patch(None)?)
        .await?;
    Ok(envelope::ok(NotificationConfigView::from(config)))
}

fn channel(value: &str) -> Result<Channel, ApiError> {
    Channel::parse(value).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::ValidationFailed,
            "channel must be email, webhook, chatA, chatB, chatC, chatD or push",
        )
    })
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct TestChannelBody {
    #[schema(schema_with = channel_schema)]
    channel: String,
}

/// Sends a test message on one channel to each of its recipients (not recorded
/// in the history); the result says what failed.
#[utoipa::path(
    request_body = TestChannelBody,
    responses((status = 200, body = Data<ChannelTestView>))
)]
#[post("/config/test-channel")]
async fn test_notification_channel(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: web::Json<TestChannelBody>,
) -> Result<HttpResponse, ApiError> {
    let result = state
        .notifications
        .test_channel(channel(&body.channel)?)
        .await?;
    Ok(envelope::ok(ChannelTestView::from(result)))
}

/// Generates and stores a new VAPID key pair; the private key is shown this once.
#[utoipa::path(responses((status = 200, body = Data<VapidKeysView>)))]
#[post("/config/generate-vapid-keys")]
async fn generate_vapid_keys(
    state: web::Data<AppState>,
    _user: RequirePermission<ConfigUpdate>,
) -> Result<HttpResponse, ApiError> {
    let keys = state.notifications.generate_vapid_keys().await?;
    Ok(envelope::ok(VapidKeysView::from(keys)))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct HistoryQuery {
    #[param(schema_with = channel_param)]
    channel: Option<String>,
    #[param(schema_with = status_param)]
    status: Option<String>,
    #[param(schema_with = notification_type_param)]
    notification_type: Option<String>,
    /// Only deliveries about this review.
    #[param(value_type = Option<Uuid>)]
    review_id: Option<String>,
    #[param(schema_with = crate::openapi::date_or_datetime)]
    start_date: Option<String>,
    #[param(schema_with = crate::openapi::date_or_datetime)]
    end_date: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
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

/// The delivery history, newest first, filtered.
#[utoipa::path(
    params(HistoryQuery, PageParams),
    responses((status = 200, body = Paginated<NotificationRecordDto>))
)]
#[get("")]
async fn list_notification_history(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<HistoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = q.page.to_request(20, 100)?;
    let history = state.notifications.history(&q.filter()?, page).await?;
    Ok(envelope::paginated(history, NotificationRecordDto::from))
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
    Ok(envelope::paginated(history, NotificationRecordDto::from))
}

/// Deliveries not sent yet (still being attempted), newest first.
#[utoipa::path(
    params(PageParams),
    responses((status = 200, body = Paginated<NotificationRecordDto>))
)]
#[get("/pending")]
async fn list_pending_notifications(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    by_status(&state, DeliveryStatus::Pending, &q).await
}

/// Deliveries that failed after their last attempt, newest first.
#[utoipa::path(
    params(PageParams),
    responses((status = 200, body = Paginated<NotificationRecordDto>))
)]
#[get("/failed")]
async fn list_failed_notifications(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    by_status(&state, DeliveryStatus::Failed, &q).await
}

/// One delivery of the history.
#[utoipa::path(responses((status = 200, body = Data<NotificationRecordView>)))]
#[get("/history/{id}")]
async fn get_notification_record(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let record = state.notifications.record(*id).await?;
    Ok(envelope::ok(NotificationRecordView::from(record)))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct StatsQuery {
    #[param(schema_with = crate::openapi::date_or_datetime)]
    start_date: Option<String>,
    #[param(schema_with = crate::openapi::date_or_datetime)]
    end_date: Option<String>,
}

/// Deliveries counted by channel and status, with totals per channel and per
/// status, over the period given (all time by default).
#[utoipa::path(
    params(StatsQuery),
    responses((status = 200, body = Data<NotificationStatsView>))
)]
#[get("/stats")]
async fn get_notification_stats(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<StatsQuery>,
) -> Result<HttpResponse, ApiError> {
    let start = date_from("startDate", q.start_date.as_deref())?;
    let end = date_until("endDate", q.end_date.as_deref())?;
    let counts = state.notifications.stats(start, end).await?;
    Ok(envelope::ok(NotificationStatsView::new(counts)))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct CleanNotificationsBody {
    /// History older than this many days is deleted (0: all of it).
    #[schema(minimum = 0, maximum = 36500)]
    days: i64,
}

/// Deletes the delivery history older than the given number of days.
#[utoipa::path(
    request_body = CleanNotificationsBody,
    responses((status = 200, body = Data<NotificationsDeleted>))
)]
#[post("/clean")]
async fn clean_notification_history(
    state: web::Data<AppState>,
    _user: RequirePermission<NotificationDelete>,
    body: web::Json<CleanNotificationsBody>,
) -> Result<HttpResponse, ApiError> {
    let deleted = state.notifications.clean(body.days).await?;
    Ok(envelope::ok(NotificationsDeleted::new(deleted)))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct PushSubscriptionKeys {
    /// The browser's P-256 public key, base64url.
    #[schema(pattern = r#"^[\t\n\v\f\r ]*[A-Za-z0-9_=-]{80,}[\t\n\v\f\r ]*$"#)]
    p256dh: String,
    /// The browser's 16-byte auth secret, base64url.
    #[schema(pattern = r#"^[\t\n\v\f\r ]*[A-Za-z0-9_=-]{16,}[\t\n\v\f\r ]*$"#)]
    auth: String,
}

/// `PushSubscription.toJSON()` as a browser gives it.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PushSubscribeBody {
    /// The push service's https URL (a public host: never a private or local
    /// address).
    #[schema(schema_with = crate::openapi::push_endpoint)]
    endpoint: String,
    keys: PushSubscriptionKeys,
    /// When the push service ends the subscription, in milliseconds since the
    /// epoch (usually null).
    #[serde(default)]
    #[schema(minimum = 0, maximum = 253_402_300_799_999_i64)]
    expiration_time: Option<f64>,
}

/// Registers the caller's browser for push notifications; the same endpoint again
/// updates the stored subscription.
#[utoipa::path(
    request_body = PushSubscribeBody,
    responses((status = 200, body = Data<PushSubscriptionView>))
)]
#[post("/push/subscribe")]
async fn subscribe_push(
    state: web::Data<AppState>,
    user: AuthUser,
    req: HttpRequest,
    body: web::Json<PushSubscribeBody>,
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
                    // Up to the end of year 9999: what RFC 3339 can write back.
                    let in_range = (0.0..=253_402_300_799_999.0).contains(&ms);
                    #[allow(clippy::cast_possible_truncation)]
                    in_range.then(|| chrono::DateTime::from_timestamp_millis(ms as i64)).flatten().ok_or_else(|| {
                        ApiError::bad_request(
                            ErrorCode::ValidationFailed,
                            "expirationTime must be milliseconds since 1970 (before year 10000) or null",
                        )
                    })
                })
                .transpose()?,
        })
        .await?;
    // 200 as the contract has it (a repeated subscription updates the stored one).
    Ok(envelope::ok(PushSubscriptionView::from(subscription)))
}

/// Every browser push subscription.
#[utoipa::path(responses((status = 200, body = Data<Vec<PushSubscriptionDto>>)))]
#[get("/push/subscriptions")]
async fn list_push_subscriptions(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let subs = state.notifications.subscriptions(None).await?;
    Ok(envelope::ok(
        subs.into_iter()
            .map(PushSubscriptionDto::from)
            .collect::<Vec<_>>(),
    ))
}

/// One user's browser push subscriptions.
#[utoipa::path(responses((status = 200, body = Data<Vec<PushSubscriptionDto>>)))]
#[get("/push/users/{user_id}")]
async fn list_user_push_subscriptions(
    state: web::Data<AppState>,
    _user: AuthUser,
    user_id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let subs = state.notifications.subscriptions(Some(*user_id)).await?;
    Ok(envelope::ok(
        subs.into_iter()
            .map(PushSubscriptionDto::from)
            .collect::<Vec<_>>(),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct PushEndpointBody {
    /// The subscription's push service URL, as subscribed.
    endpoint: String,
}

/// Marks a push subscription as used now.
#[utoipa::path(
    request_body = PushEndpointBody,
    responses((status = 200, body = Data<PushTouched>))
)]
#[post("/push/touch")]
async fn touch_push_subscription(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: web::Json<PushEndpointBody>,
) -> Result<HttpResponse, ApiError> {
    state.notifications.touch(body.endpoint.trim()).await?;
    Ok(envelope::ok(PushTouched::YES))
}

/// Removes a push subscription.
#[utoipa::path(
    request_body = PushEndpointBody,
    responses((status = 200, body = Data<PushUnsubscribed>))
)]
#[delete("/push/unsubscribe")]
async fn unsubscribe_push(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: web::Json<PushEndpointBody>,
) -> Result<HttpResponse, ApiError> {
    state
        .notifications
        .unsubscribe(body.endpoint.trim())
        .await?;
    Ok(envelope::ok(PushUnsubscribed::YES))
}

/// Deletes the push subscriptions whose push service has ended them.
#[utoipa::path(responses((status = 200, body = Data<NotificationsDeleted>)))]
#[post("/push/clean")]
async fn clean_push_subscriptions(
    state: web::Data<AppState>,
    _user: RequirePermission<NotificationDelete>,
) -> Result<HttpResponse, ApiError> {
    let deleted = state.notifications.clean_subscriptions().await?;
    Ok(envelope::ok(NotificationsDeleted::new(deleted)))
}
