//! Prometheus metrics (`GET /api/metrics`): one recorder per process, HTTP metrics
//! labelled by route template (so label cardinality stays bounded), and gauges read
//! at scrape time.

use crate::state::AppState;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{Error, web};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;
use std::time::Instant;

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Latency buckets in seconds, from a fast API call to a slow platform call.
const BUCKETS: [f64; 12] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// The process's recorder, installed on first use (several apps in one test process
/// share it).
pub fn handle() -> PrometheusHandle {
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new();
            let builder = match builder.set_buckets(&BUCKETS) {
                Ok(b) => b,
                Err(_) => PrometheusBuilder::new(),
            };
            let recorder = builder.build_recorder();
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!("metrics.recorder_already_installed");
            } else {
                crate::metric_families::describe_all();
            }
            handle
        })
        .clone()
}

/// Counts requests and their latency by method, route template and status, in the
/// Prometheus recorder and in the replica's tally for `/api/monitoring/api`.
pub async fn track(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, Error> {
    let started = Instant::now();
    let method = req.method().to_string();
    let response = next.call(req).await?;
    // The template (`/api/projects/{id}`), never the raw path, so ids do not become labels.
    let route = response
        .request()
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let code = response.status().as_u16();
    let elapsed = started.elapsed();
    if let Some(state) = response.request().app_data::<web::Data<AppState>>() {
        state
            .monitoring
            .tally()
            .record(&route, &method, code, elapsed.as_secs_f64() * 1000.0);
    }
    let status = code.to_string();
    metrics::counter!("http_requests_total", "method" => method.clone(), "route" => route.clone(), "status" => status)
        .increment(1);
    metrics::histogram!("http_request_duration_seconds", "method" => method, "route" => route)
        .record(elapsed.as_secs_f64());
    Ok(response)
}
