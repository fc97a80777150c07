//! The pages, one module per section of the navigation.

mod auth;
mod overview;
mod platforms;
mod projects;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    auth::configure(cfg);
    overview::configure(cfg);
    platforms::configure(cfg);
    projects::configure(cfg);
}
