//! hostA: reviewd's `HostingPlatform` (and `PlatformOAuth`) over the GitLab REST API v4.
//!
//! Requests are built by the `gitlab` crate's endpoint builders (path, query, form
//! body) and sent by [`reviewd_http::HttpClient`] through the crate's
//! `RestClient`/`AsyncClient` traits (`rest.rs`), so GitLab calls keep the one
//! timeout/retry/rate-limit policy every adapter shares (see docs/platforms.md). The
//! few calls the crate has no builder for are `Endpoint`s of ours beside its own
//! (`endpoints.rs`), and so is reading page N with its `X-Total`/`X-Next-Page`
//! headers (`GlRest::one_page`). The crate ships no response types: the JSON read
//! is ours (`api.rs`). Its own client (`build_async`, which calls `/user`) is never
//! built.

mod api;
mod client;
mod endpoints;
mod gate;
mod ids;
mod oauth;
mod platform;
mod repository;
mod rest;
mod suggestion;
mod talk;
pub mod webhook;

pub use client::GitlabPlatform;
pub use oauth::GitlabOAuth;
