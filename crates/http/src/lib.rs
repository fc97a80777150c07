//! One outbound HTTP client for every adapter (platforms, AI provider, notifiers), so
//! they share a single policy: a timeout on every call, bounded retries with
//! exponential backoff on 429/5xx and network failures, `Retry-After` honoured, and
//! errors that say which of those happened.
//!
//! The policy lives in one loop, [`run_with_policy`], which [`HttpClient`] runs for
//! each call. It is public, with [`classify`] (a non-2xx answer to an [`HttpError`]),
//! [`transport_error`], [`HttpClient::reqwest`] and [`HttpClient::policy`], so that a
//! platform library that sends its own requests (octocrab's service stack, in
//! `reviewd-platform-github`) is driven by the same loop and the same reqwest client
//! rather than by its own retry rules.

pub mod archive;
mod client;
mod error;
mod pages;
mod platform;
mod response;
mod retry;

pub use client::{HttpClient, transport_error};
pub use error::{HttpError, classify};
pub use pages::{MAX_PAGES, collect_pages};
pub use platform::platform_error;
pub use response::HttpResponse;
pub use retry::{RetryPolicy, run_with_policy};
