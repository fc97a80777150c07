//! HTTP routes, one module per resource, each with a `configure` function.

mod ai_configs;
mod api_keys;
mod auth;
mod catalog;
mod dto;
mod health;
mod metrics;
mod monitoring;
mod notifications;
mod platform_configs;
mod projects;
mod reviews;
mod runners;
mod serde_helpers;
mod system;
mod users;
mod webhooks;

use utoipa_actix_web::{scope, service_config::ServiceConfig};

/// Every route under `/api`.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/api")
            .configure(health::configure)
            .configure(metrics::configure)
            .configure(monitoring::configure)
            .configure(system::configure)
            .configure(auth::configure)
            .configure(api_keys::configure)
            .configure(users::configure)
            .configure(platform_configs::configure)
            .configure(ai_configs::configure)
            .configure(projects::configure)
            .configure(catalog::configure)
            .configure(reviews::configure)
            .configure(runners::configure)
            .configure(notifications::configure)
            .configure(webhooks::configure),
    );
}
