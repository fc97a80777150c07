//! The delivery history: filtered lists, one delivery, and cleaning up old ones.

use super::{
    NotificationsDeleted, channel_schema, delivery_status_schema, notification_type_schema,
};
use crate::envelope::{self, Data, Paginated};
use crate::error::ApiError;
use crate::extract::perm::NotificationDelete;
use crate::extract::{AuthUser, PageParams, RequirePermission, choice, date_from, date_until};
use crate::state::AppState;
use actix_web::{HttpResponse, get, post, web};
use chrono::{DateTime, Utc};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::notification::{
    Channel, DeliveryStatus, HistoryFilter, NotificationRecord, NotificationType,
};
use serde::{Deserialize, Serialize};
use utoipa::openapi::Object;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A string schema with a description: for an enumerated query parameter.
fn described(mut schema: Object, description: &str) -> Object {
    schema.description = Some(description.to_owned());
    schema
}

/// The `channel` filter, described.
fn channel_param() -> Object {
    described(channel_schema(), "Only deliveries on this channel.")
}

fn status_param() -> Object {
    described(delivery_status_schema(), "Only deliveries in this state.")
}

fn notification_type_param() -> Object {
    described(notification_type_schema(), "Only deliveries of this event.")
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
    #[param(schema_with = crate::field_schemas::date_or_datetime)]
    start_date: Option<String>,
    #[param(schema_with = crate::field_schemas::date_or_datetime)]
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
                .map(|r| {
                    Uuid::parse_str(r)
                        .map(ReviewId)
                        .map_err(|_| query_error("reviewId must be a UUID"))
                })
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
pub(super) async fn list_notification_history(
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
pub(super) async fn list_pending_notifications(
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
pub(super) async fn list_failed_notifications(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    by_status(&state, DeliveryStatus::Failed, &q).await
}

/// One delivery of the history.
#[utoipa::path(responses((status = 200, body = Data<NotificationRecordView>)))]
#[get("/history/{id}")]
pub(super) async fn get_notification_record(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let record = state.notifications.record(*id).await?;
    Ok(envelope::ok(NotificationRecordView::from(record)))
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
pub(super) async fn clean_notification_history(
    state: web::Data<AppState>,
    _user: RequirePermission<NotificationDelete>,
    body: web::Json<CleanNotificationsBody>,
) -> Result<HttpResponse, ApiError> {
    let deleted = state.notifications.clean(body.days).await?;
    Ok(envelope::ok(NotificationsDeleted::new(deleted)))
}

/// One delivery (a channel and a recipient).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct NotificationRecordDto {
    id: Uuid,
    review_id: Option<Uuid>,
    #[schema(schema_with = channel_schema)]
    channel: &'static str,
    #[schema(schema_with = notification_type_schema)]
    notification_type: &'static str,
    /// An address, URL (without its query) or channel id; null for a channel's one
    /// configured endpoint.
    recipient: Option<String>,
    #[schema(schema_with = delivery_status_schema)]
    status: &'static str,
    error_message: Option<String>,
    attempts: i32,
    sent_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
}

impl From<NotificationRecord> for NotificationRecordDto {
    fn from(r: NotificationRecord) -> Self {
        Self {
            id: r.id,
            review_id: r.review_id.map(Uuid::from),
            channel: r.channel.as_str(),
            notification_type: r.notification_type.as_str(),
            recipient: r.recipient,
            status: r.status.as_str(),
            error_message: r.error_message,
            attempts: r.attempts,
            sent_at: r.sent_at,
            created_at: r.created_at,
        }
    }
}

/// `{"notification": {...}}`.
#[derive(Serialize, ToSchema)]
struct NotificationRecordView {
    notification: NotificationRecordDto,
}

impl From<NotificationRecord> for NotificationRecordView {
    fn from(r: NotificationRecord) -> Self {
        Self {
            notification: r.into(),
        }
    }
}
