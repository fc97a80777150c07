//! Liveness (public) and the state of each dependency.

use crate::envelope::{self, Data};
use crate::extract::AuthUser;
use crate::field_schemas::string_enum;
use crate::settings::NodeEnv;
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use futures_util::future::join_all;
use reviewd_domain::model::health::HealthStatus;
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// `development`, `production` or `test`.
fn node_env_schema() -> utoipa::openapi::Object {
    string_enum([NodeEnv::Development, NodeEnv::Production, NodeEnv::Test].map(NodeEnv::as_str))
}

/// Which deployment answers.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct HealthEnvironmentDto {
    /// `APP_ENV` (by default `NODE_ENV`'s value).
    app_env: String,
    #[schema(schema_with = node_env_schema)]
    node_env: &'static str,
}

fn ok_schema() -> utoipa::openapi::Object {
    string_enum(["ok"])
}

/// Liveness: always `ok`.
#[derive(Serialize, ToSchema)]
struct LivenessDto {
    environment: HealthEnvironmentDto,
    #[schema(schema_with = ok_schema)]
    status: &'static str,
    timestamp: DateTime<Utc>,
}

/// Liveness: answers `ok` whenever the process serves HTTP.
#[utoipa::path(responses((status = 200, body = Data<LivenessDto>)), security(()))]
#[get("")]
pub(super) async fn get_health(state: web::Data<AppState>) -> HttpResponse {
    envelope::ok(LivenessDto {
        environment: HealthEnvironmentDto {
            app_env: state.settings.app_env.clone(),
            node_env: state.settings.node_env.as_str(),
        },
        status: "ok",
        timestamp: Utc::now(),
    })
}

fn dependency_status_schema() -> utoipa::openapi::Object {
    string_enum([
        HealthStatus::Healthy.as_str(),
        HealthStatus::Unhealthy.as_str(),
    ])
}

/// One dependency: `healthy` with its round trip, or `unhealthy` with why.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct DependencyCheckDto {
    /// Set when `unhealthy`: `not reachable`.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'static str>,
    /// Milliseconds of the round trip, set when `healthy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    response_time: Option<f64>,
    #[schema(schema_with = dependency_status_schema)]
    status: &'static str,
}

fn detailed_status_schema() -> utoipa::openapi::Object {
    string_enum(["ok", "degraded"])
}

/// Each dependency's state; `degraded` when one does not answer.
#[derive(Serialize, ToSchema)]
struct DetailedHealthDto {
    /// By dependency name (`database`, `queue`...).
    checks: BTreeMap<&'static str, DependencyCheckDto>,
    #[schema(schema_with = detailed_status_schema)]
    status: &'static str,
    timestamp: DateTime<Utc>,
    /// Seconds since this process started.
    uptime: u64,
    version: &'static str,
}

/// `ok` when every dependency answers, `degraded` otherwise, with each one's result.
#[utoipa::path(responses((status = 200, body = Data<DetailedHealthDto>)))]
#[get("/detailed")]
pub(super) async fn get_detailed_health(
    state: web::Data<AppState>,
    _user: AuthUser,
) -> HttpResponse {
    let results = join_all(
        state
            .probes
            .iter()
            .map(|p| async move { (p.name(), p.ping().await) }),
    )
    .await;
    let mut checks = BTreeMap::new();
    let mut all_ok = true;
    for (name, result) in results {
        let check = match result {
            Ok(took) => DependencyCheckDto {
                error: None,
                response_time: Some(took.as_secs_f64() * 1000.0),
                status: HealthStatus::Healthy.as_str(),
            },
            Err(err) => {
                all_ok = false;
                tracing::warn!(check = name, error = %err, "health.dependency_down");
                DependencyCheckDto {
                    error: Some("not reachable"),
                    response_time: None,
                    status: HealthStatus::Unhealthy.as_str(),
                }
            }
        };
        checks.insert(name, check);
    }
    envelope::ok(DetailedHealthDto {
        checks,
        status: if all_ok { "ok" } else { "degraded" },
        uptime: state.started_at.elapsed().as_secs(),
        timestamp: Utc::now(),
        version: env!("CARGO_PKG_VERSION"),
    })
}
