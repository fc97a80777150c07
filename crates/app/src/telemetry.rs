//! Structured logging with tracing: level from `LOG_LEVEL` (or `RUST_LOG` when set),
//! to stdout (JSON lines in production or with `LOG_FORMAT=json`) and to a file in
//! `LOG_DIR` that rolls over at midnight UTC (`reviewd.YYYY-MM-DD.log`, JSON lines);
//! `logs::prune` deletes files older than `LOG_RETENTION_DAYS`.

use crate::config::Config;
use crate::logs::{LOG_FILE_PREFIX, LOG_FILE_SUFFIX};
use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

pub fn init(config: &Config) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(format!("{},actix_server=warn", config.log_level)));
    let file = RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix(LOG_FILE_PREFIX)
        .filename_suffix(LOG_FILE_SUFFIX)
        .build(&config.log_dir);
    // Without a usable LOG_DIR, start-up refuses right after this with one line
    // naming it; until then, stdout logging is enough.
    let file = file.ok();
    let json = config.log_format_json;
    let stdout_json = json.then(|| {
        tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_target(false)
    });
    let stdout_text = (!json).then(|| tracing_subscriber::fmt::layer().with_target(false));
    let file_layer = file.map(|writer| {
        tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_target(false)
            .with_ansi(false)
            .with_writer(writer)
    });
    let result = tracing_subscriber::registry()
        .with(filter)
        .with(stdout_json)
        .with(stdout_text)
        .with(file_layer)
        .try_init();
    // A subscriber already set (tests building several apps) is fine.
    drop(result);
}
