//! The pages, one module per section of the navigation.

mod ai_configs;
mod auth;
mod catalog;
mod health;
mod learnings;
mod manual;
mod notifications;
mod overview;
mod platforms;
mod projects;
mod reviews;
mod runners;
mod settings;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    ai_configs::configure(cfg);
    auth::configure(cfg);
    catalog::configure(cfg);
    health::configure(cfg);
    learnings::configure(cfg);
    manual::configure(cfg);
    notifications::configure(cfg);
    overview::configure(cfg);
    platforms::configure(cfg);
    projects::configure(cfg);
    reviews::configure(cfg);
    runners::configure(cfg);
    settings::configure(cfg);
}
