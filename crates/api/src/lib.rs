//! The HTTP edge of reviewd: actix-web routes and their DTOs, extractors, the envelope and
//! errors, the input checks (`hygiene`, `csrf`, `cors`), the OpenAPI document, and the
//! server around them (`serve`). Handlers own HTTP concerns only; rules live in the domain,
//! and the wiring of services lives in the server binary's crate (`reviewd-server`).

pub mod client_addr;
pub mod cors;
pub mod csrf;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod fallback;
pub mod field_schemas;
pub mod hygiene;
pub mod metric_families;
pub mod metrics;
pub mod openapi;
pub mod request_id;
pub mod routes;
pub mod serve;
pub mod settings;
pub mod state;
