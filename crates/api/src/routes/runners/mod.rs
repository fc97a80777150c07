//! `/api/runners`: the runner protocol. Its bodies are `reviewd-runner-protocol`'s
//! types, the same the runner agent sends and reads; this module converts them from
//! and to the domain's, field by field (neither crate knows the other, so these are
//! functions rather than `From` impls, each beside the handlers that use it).
//!
//! Register, heartbeat, claim, phase, logs and result need an API key
//! (`Authorization: Bearer` or `x-api-key`; a session is refused with 403), register
//! and claim an admin's (claimed tasks carry the platform's token and the AI key), and
//! a runner's calls must come with the key it registered with. List and get accept a
//! session too; delete accepts any authenticated caller. List, get and register answer
//! the record or array directly as `data`.

mod context;
mod registry;
mod result;
mod tasks;

use crate::error::ApiError;
use crate::extract::{AuthUser, RESULT_LIMIT_BYTES, json_config_limited};
use registry::{deregister_runner, get_runner, list_runners, register_runner, runner_heartbeat};
use result::submit_task_result;
use reviewd_domain::model::AuthMethod;
use tasks::{append_task_logs, claim_pending_tasks, report_task_phase};
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/runners")
            .service(list_runners)
            .service(register_runner)
            .service(claim_pending_tasks)
            .service(report_task_phase)
            .service(append_task_logs)
            .service(
                scope("/tasks/{task_id}/result")
                    .app_data(json_config_limited(RESULT_LIMIT_BYTES))
                    .service(submit_task_result),
            )
            .service(get_runner)
            .service(deregister_runner)
            .service(runner_heartbeat),
    );
}

/// The API key the caller authenticated with; sessions are refused (403).
fn api_key(user: &AuthUser) -> Result<Uuid, ApiError> {
    match user.0.method {
        AuthMethod::ApiKey { key_id } => Ok(key_id),
        AuthMethod::Session { .. } => Err(ApiError::forbidden(
            "runner endpoints need an API key (Authorization: Bearer or x-api-key)",
        )),
    }
}

/// Registering and claiming hand out the platform token and the AI key with each
/// task: only an admin's API key may do it (the contract shows raw tokens to admins
/// only).
fn admin_api_key(user: &AuthUser) -> Result<Uuid, ApiError> {
    let key = api_key(user)?;
    if !user.0.is_admin() {
        return Err(ApiError::forbidden(
            "runners must use an admin's API key: claimed tasks carry the platform's access token",
        ));
    }
    Ok(key)
}
