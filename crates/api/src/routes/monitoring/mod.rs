//! Monitoring: `GET /api/monitoring/overview`, `/system` and `/database` (paginated
//! history, newest first, `page`, `pageSize` default 20 max 100, `startDate`),
//! `/api` (request statistics since `startDate`, default the last 24 hours) and
//! `POST /api/monitoring/collect`.

mod api_stats;
mod overview;
mod samples;

use api_stats::get_api_stats;
use overview::get_monitoring_overview;
use samples::{collect_monitoring_samples, list_database_samples, list_system_samples};
use utoipa_actix_web::{scope, service_config::ServiceConfig};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/monitoring")
            .service(get_monitoring_overview)
            .service(list_system_samples)
            .service(list_database_samples)
            .service(get_api_stats)
            .service(collect_monitoring_samples),
    );
}
