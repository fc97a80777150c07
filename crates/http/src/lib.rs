//! One outbound HTTP client for every adapter (platforms, AI provider, notifiers), so
//! they share a single policy: a timeout on every call, bounded retries with
//! exponential backoff on 429/5xx and network failures, `Retry-After` honoured, and
//! errors that say which of those happened.

mod client;
mod error;
mod links;
mod pages;
mod platform;
mod retry;

pub use client::{HttpClient, HttpResponse};
pub use error::HttpError;
pub use links::next_link;
pub use pages::{MAX_PAGES, collect_pages};
pub use platform::platform_error;
pub use retry::RetryPolicy;
