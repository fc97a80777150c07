//! hostB: reviewd's `HostingPlatform` over the GitHub REST API (github.com or
//! GitHub Enterprise Server).
//!
//! A thin client on the shared [`reviewd_http::HttpClient`] rather than octocrab:
//! octocrab's review types are `#[non_exhaustive]` and cannot be built outside it,
//! it brings a second HTTP stack with its own retry rules, and most calls here are
//! a path and a handful of fields (see docs/platforms.md).

mod api;
mod client;
mod graphql;
mod platform;
mod suggestion;
mod threads;

pub use client::GithubPlatform;
