//! Structured logging with tracing: level from `LOG_LEVEL` (or `RUST_LOG` when set),
//! JSON lines in production or with `LOG_FORMAT=json`.

use crate::config::Config;
use tracing_subscriber::EnvFilter;

pub fn init(config: &Config) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(format!("{},actix_server=warn", config.log_level)));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    let result = if config.log_format_json {
        builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .try_init()
    } else {
        builder.try_init()
    };
    // A subscriber already set (tests building several apps) is fine.
    drop(result);
}
