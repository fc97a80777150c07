//! `POST /api/system/reset`: deletes all data. Disabled (404) unless `RESET_DB_KEY`
//! is set; needs an admin and the key in `X-Reset-Key` (403 otherwise). The root user
//! is created again afterwards so the instance stays reachable.

use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::RequireAdmin;
use crate::state::AppState;
use actix_web::{FromRequest, HttpRequest, HttpResponse, post, web};
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;
use utoipa_actix_web::{scope, service_config::ServiceConfig};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(scope("/system").service(reset_system));
}

/// What a reset emptied.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SystemReset {
    /// Tables or keys emptied, by store (`database`, `queue`).
    cleared: BTreeMap<String, u64>,
    /// Always `true`.
    reset: bool,
    /// Whether the root user (`ROOT_EMAIL`/`ROOT_PASSWORD`) was created again.
    root_user_recreated: bool,
}

/// Deletes all data (only the caller's account and credential survive) and creates
/// the root user again. A 404 unless the server has `RESET_DB_KEY`; an admin only.
///
/// The 404 comes before authentication, so a disabled reset is indistinguishable
/// from a route that does not exist.
#[utoipa::path(
    params((
        "X-Reset-Key" = String,
        Header,
        description = "The server's `RESET_DB_KEY`; missing or wrong is a 403."
    )),
    responses((status = 200, body = Data<SystemReset>))
)]
#[post("/reset")]
async fn reset_system(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, actix_web::Error> {
    let Some(expected) = state.settings.reset_db_key.as_ref() else {
        return Err(
            ApiError::not_found(format!("no route for {} {}", req.method(), req.path())).into(),
        );
    };
    let admin = RequireAdmin::extract(&req).await?;
    let given = req
        .headers()
        .get("x-reset-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if given.is_empty()
        || !reviewd_crypto::constant_time_eq(given.as_bytes(), expected.expose().as_bytes())
    {
        return Err(ApiError::forbidden("X-Reset-Key is missing or wrong").into());
    }
    tracing::warn!(user.id = %admin.0.user.id, "system.reset_requested");
    let cleared = state
        .system_reset
        .reset(&admin.0)
        .await
        .map_err(ApiError::from)?;
    // Counts this replica has not flushed yet belong to the wiped data too.
    drop(state.monitoring.tally().drain());
    let root_recreated = match (&state.settings.root_email, &state.settings.root_password) {
        (Some(email), Some(password)) => {
            state
                .auth
                .ensure_root(email, password.expose())
                .await
                .map_err(ApiError::from)?;
            true
        }
        _ => false,
    };
    Ok(envelope::ok(SystemReset {
        cleared: cleared
            .into_iter()
            .map(|(store, n)| (store.to_owned(), n))
            .collect(),
        reset: true,
        root_user_recreated: root_recreated,
    }))
}
