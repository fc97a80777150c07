//! Delivery statistics by channel and status.

use super::{channel_schema, delivery_status_schema};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{AuthUser, date_from, date_until};
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use reviewd_domain::model::notification::{DeliveryCount, DeliveryStatus};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::openapi::schema::Type;
use utoipa::openapi::{Object, ObjectBuilder};
use utoipa::{IntoParams, PartialSchema, ToSchema};

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
struct StatsQuery {
    #[param(schema_with = crate::field_schemas::date_or_datetime)]
    start_date: Option<String>,
    #[param(schema_with = crate::field_schemas::date_or_datetime)]
    end_date: Option<String>,
}

/// Deliveries counted by channel and status, with totals per channel and per
/// status, over the period given (all time by default).
#[utoipa::path(
    params(StatsQuery),
    responses((status = 200, body = Data<NotificationStatsView>))
)]
#[get("/stats")]
pub(super) async fn get_notification_stats(
    state: web::Data<AppState>,
    _user: AuthUser,
    q: web::Query<StatsQuery>,
) -> Result<HttpResponse, ApiError> {
    let start = date_from("startDate", q.start_date.as_deref())?;
    let end = date_until("endDate", q.end_date.as_deref())?;
    let counts = state.notifications.stats(start, end).await?;
    Ok(envelope::ok(NotificationStatsView::new(counts)))
}

/// Deliveries by status; every status is present (0 when none).
#[derive(Clone, Copy, Default, Serialize, ToSchema)]
struct DeliveryStatusCounts {
    failed: i64,
    pending: i64,
    sent: i64,
}

impl DeliveryStatusCounts {
    fn add(&mut self, status: DeliveryStatus, count: i64) {
        match status {
            DeliveryStatus::Failed => self.failed += count,
            DeliveryStatus::Pending => self.pending += count,
            DeliveryStatus::Sent => self.sent += count,
        }
    }
}

/// Deliveries counted by channel and status.
#[derive(Serialize, ToSchema)]
struct DeliveryCountDto {
    #[schema(schema_with = channel_schema)]
    channel: &'static str,
    count: i64,
    #[schema(schema_with = delivery_status_schema)]
    status: &'static str,
}

/// `byChannel`: a channel's counts by status, for each channel that has deliveries.
fn by_channel_schema() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .property_names(Some(channel_schema()))
        .additional_properties(Some(DeliveryStatusCounts::schema()))
        .description(Some(
            "Counts by status for each channel that has deliveries (channels without any are absent).",
        ))
        .build()
}

/// Delivery statistics: the counts by channel and status, with totals per channel
/// and per status.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct NotificationStatsDto {
    #[schema(schema_with = by_channel_schema)]
    by_channel: BTreeMap<&'static str, DeliveryStatusCounts>,
    by_status: DeliveryStatusCounts,
    items: Vec<DeliveryCountDto>,
    total: i64,
}

/// `{"stats": {...}}`.
#[derive(Serialize, ToSchema)]
struct NotificationStatsView {
    stats: NotificationStatsDto,
}

impl NotificationStatsView {
    fn new(counts: Vec<DeliveryCount>) -> Self {
        let mut by_channel: BTreeMap<&'static str, DeliveryStatusCounts> = BTreeMap::new();
        let mut by_status = DeliveryStatusCounts::default();
        for c in &counts {
            by_channel
                .entry(c.channel.as_str())
                .or_default()
                .add(c.status, c.count);
            by_status.add(c.status, c.count);
        }
        Self {
            stats: NotificationStatsDto {
                by_channel,
                by_status,
                total: counts.iter().map(|c| c.count).sum(),
                items: counts
                    .into_iter()
                    .map(|c| DeliveryCountDto {
                        channel: c.channel.as_str(),
                        count: c.count,
                        status: c.status.as_str(),
                    })
                    .collect(),
            },
        }
    }
}
