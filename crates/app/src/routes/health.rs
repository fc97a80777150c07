//! `GET /api/health` (public liveness) and `GET /api/health/detailed` (dependencies).

use crate::envelope;
use crate::extract::AuthUser;
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use chrono::Utc;
use futures_util::future::join_all;
use serde_json::{Map, json};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/health", web::get().to(health))
        .route("/health/detailed", web::get().to(health_detailed));
}

/// Liveness: answers `ok` whenever the process serves HTTP.
async fn health(state: web::Data<AppState>) -> HttpResponse {
    envelope::ok(json!({
        "status": "ok",
        "timestamp": Utc::now(),
        "environment": {
            "appEnv": state.config.app_env,
            "nodeEnv": state.config.node_env.as_str(),
        },
    }))
}

/// `ok` when every dependency answers, `degraded` otherwise, with each one's result.
async fn health_detailed(state: web::Data<AppState>, _user: AuthUser) -> HttpResponse {
    let results = join_all(
        state
            .probes
            .iter()
            .map(|p| async move { (p.name(), p.ping().await) }),
    )
    .await;
    let mut checks = Map::new();
    let mut all_ok = true;
    for (name, result) in results {
        let check = match result {
            Ok(took) => json!({ "status": "healthy", "responseTime": took.as_secs_f64() * 1000.0 }),
            Err(err) => {
                all_ok = false;
                tracing::warn!(check = name, error = %err, "health.dependency_down");
                json!({ "status": "unhealthy", "error": "not reachable" })
            }
        };
        checks.insert(name.to_owned(), check);
    }
    envelope::ok(json!({
        "status": if all_ok { "ok" } else { "degraded" },
        "uptime": state.started_at.elapsed().as_secs(),
        "timestamp": Utc::now(),
        "version": env!("CARGO_PKG_VERSION"),
        "checks": checks,
    }))
}
