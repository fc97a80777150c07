//! End-to-end HTTP tests: each test starts the real server on its own database and
//! Redis key prefix, and talks to it over loopback.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod helpers;

mod ai_configs;
mod api_keys;
mod auth;
mod conventions;
mod csrf;
mod dashboard;
mod health;
mod input_hygiene;
mod login_throttle;
mod monitoring;
mod notifications;
mod openapi;
mod pages;
mod platform_configs;
mod projects;
mod review_pipeline;
mod reviews;
mod runner_agent;
mod runners;
mod secrets_stay_home;
mod system_reset;
mod users;
mod webhooks;
