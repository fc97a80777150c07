//! hostA: reviewd's `HostingPlatform` over the GitLab REST API v4.
//!
//! A thin client on the shared [`reviewd_http::HttpClient`] rather than the `gitlab`
//! crate: that crate ships no response types (ours are needed either way), calls
//! `/user` when a client is built, and brings its own HTTP stack; ours shares one
//! timeout/retry/rate-limit policy with every other adapter (see docs/platforms.md).

mod api;
mod client;
mod oauth;
mod platform;
mod suggestion;

pub use client::GitlabPlatform;
pub use oauth::GitlabOAuth;
