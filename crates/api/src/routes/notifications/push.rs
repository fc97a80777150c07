//! Browser push subscriptions: subscribing, listing, touching, unsubscribing and
//! cleaning up ended ones.

use super::NotificationsDeleted;
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::perm::NotificationDelete;
use crate::extract::{AuthUser, RequirePermission};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::notification::{NewPushSubscription, PushSubscription};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

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
    #[schema(schema_with = crate::field_schemas::push_endpoint)]
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
pub(super) async fn subscribe_push(
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
                    // In range, so the cast to whole milliseconds cannot truncate.
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
pub(super) async fn list_push_subscriptions(
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
pub(super) async fn list_user_push_subscriptions(
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
pub(super) async fn touch_push_subscription(
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
pub(super) async fn unsubscribe_push(
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
pub(super) async fn clean_push_subscriptions(
    state: web::Data<AppState>,
    _user: RequirePermission<NotificationDelete>,
) -> Result<HttpResponse, ApiError> {
    let deleted = state.notifications.clean_subscriptions().await?;
    Ok(envelope::ok(NotificationsDeleted::new(deleted)))
}

/// A browser's push subscription as listed: its encryption keys are not shown.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct PushSubscriptionDto {
    created_at: DateTime<Utc>,
    endpoint: String,
    /// When the push service ends the subscription, if it said.
    expires_at: Option<DateTime<Utc>>,
    id: Uuid,
    last_used_at: Option<DateTime<Utc>>,
    user_agent: Option<String>,
    user_id: Option<Uuid>,
}

impl From<PushSubscription> for PushSubscriptionDto {
    fn from(s: PushSubscription) -> Self {
        Self {
            created_at: s.created_at,
            endpoint: s.endpoint,
            expires_at: s.expires_at,
            id: s.id,
            last_used_at: s.last_used_at,
            user_agent: s.user_agent,
            user_id: s.user_id,
        }
    }
}

/// `{"subscription": {...}}`.
#[derive(Serialize, ToSchema)]
struct PushSubscriptionView {
    subscription: PushSubscriptionDto,
}

impl From<PushSubscription> for PushSubscriptionView {
    fn from(s: PushSubscription) -> Self {
        Self {
            subscription: s.into(),
        }
    }
}

/// `{"touched": true}`.
#[derive(Serialize, ToSchema)]
struct PushTouched {
    touched: bool,
}

impl PushTouched {
    const YES: Self = Self { touched: true };
}

/// `{"unsubscribed": true}`.
#[derive(Serialize, ToSchema)]
struct PushUnsubscribed {
    unsubscribed: bool,
}

impl PushUnsubscribed {
    const YES: Self = Self { unsubscribed: true };
}
