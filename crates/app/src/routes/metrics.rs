//! `GET /api/metrics` (public): the Prometheus text exposition format.

use crate::state::AppState;
use actix_web::{HttpResponse, web};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/metrics", web::get().to(metrics));
}

async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    // Gauges read now rather than kept up to date on every change.
    if let Ok(depth) = state.tasks.queue_depth().await {
        #[allow(clippy::cast_precision_loss)]
        metrics::gauge!("reviewd_queue_depth").set(depth as f64);
    }
    let handle = crate::metrics::handle();
    handle.run_upkeep();
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(handle.render())
}
