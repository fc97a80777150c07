//! hostB: reviewd's `HostingPlatform` over the GitHub REST and GraphQL APIs
//! (github.com or GitHub Enterprise Server).
//!
//! Octocrab is the transport and the auth engine, not the model library: each call
//! is one of its generic requests (`get`, `post`, `_patch`, `_delete`...) on a
//! relative route, read into this crate's own serde types (`api.rs`), because
//! octocrab's typed models are `#[non_exhaustive]` and refuse the partial JSON that
//! Enterprise Servers and the fake send. Its requests go over the shared reqwest
//! client (`reviewd_http::HttpClient`, with its timeouts) through two layers of
//! ours (`stack.rs`): one puts REST and GraphQL routes under their bases, one runs
//! every attempt through reviewd's retry policy (docs/platforms.md §1); octocrab's
//! own retry layer is not built. Lists are read by page number, never by following
//! `Link` URLs, which octocrab would send without the token off api.github.com.
//!
//! A config is a token or a GitHub App (`app.rs`): the App's own calls are signed
//! with its JWT, each repository's go through the client of the installation that
//! reaches it, which mints its token lazily and again before it expires (or once
//! refused); runners get a token of their own, narrowed to one repository.

mod api;
mod app;
mod client;
mod conversation;
mod gate;
mod graphql;
mod platform;
mod repository;
mod route_repo;
mod stack;
mod suggestion;
mod threads;
pub mod webhook;

pub use client::GithubPlatform;
