//! The overview: the host and the database now, and the API over the last day.

use super::api_stats::ApiStatsDto;
use super::samples::{DatabaseSampleDto, SystemSampleDto};
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::AuthUser;
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use reviewd_domain::services::monitoring::Overview;
use serde::Serialize;
use utoipa::ToSchema;

/// The host and the database now, and the API over the last 24 hours.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct MonitoringOverviewDto {
    system: SystemSampleDto,
    database: DatabaseSampleDto,
    /// Seconds since this server process started.
    uptime: u64,
    api: ApiStatsDto,
}

impl From<Overview> for MonitoringOverviewDto {
    fn from(o: Overview) -> Self {
        MonitoringOverviewDto {
            system: o.system.into(),
            database: o.database.into(),
            uptime: o.uptime,
            api: o.api.into(),
        }
    }
}

/// The host and the database now, and the API statistics of the last 24 hours.
#[utoipa::path(responses((status = 200, body = Data<MonitoringOverviewDto>)))]
#[get("/overview")]
pub(super) async fn get_monitoring_overview(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> Result<HttpResponse, ApiError> {
    let overview = state.monitoring.overview().await?;
    Ok(envelope::ok(MonitoringOverviewDto::from(overview)))
}
