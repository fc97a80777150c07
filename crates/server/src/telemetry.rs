//! Structured logging with tracing: level from `LOG_LEVEL` (or `RUST_LOG` when set),
//! to stdout (JSON lines in production or with `LOG_FORMAT=json`) and to a file in
//! `LOG_DIR` that rolls over at midnight UTC (`reviewd.YYYY-MM-DD.log`, JSON lines);
//! `logs::prune` deletes files older than `LOG_RETENTION_DAYS`.

use crate::config::Config;
use reviewd_runtime::logs::{LOG_FILE_PREFIX, LOG_FILE_SUFFIX};
use tracing_appender::non_blocking::{NonBlocking, NonBlockingBuilder, WorkerGuard};
use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Keeps the log writers' threads: dropping it writes out what is buffered, so the
/// process holds it until it exits.
#[must_use = "dropping the guard stops logging"]
pub struct LogGuard(#[expect(dead_code, reason = "held for its Drop")] Vec<WorkerGuard>);

/// Lines a writer holds before a logging thread waits (a burst of several seconds
/// of a webhook flood's four lines a request).
const BUFFERED_LINES: usize = 16_384;

/// Lines go to a writer thread, so a request never waits on stdout or the disk
/// (synchronous writes were 8 system calls per webhook on its path). Never lossy:
/// when the buffer is full, a logging thread waits rather than drop lines.
fn writer(to: impl std::io::Write + Send + 'static, guards: &mut Vec<WorkerGuard>) -> NonBlocking {
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        // The queue is allocated whole at start: tracing-appender's 128,000 lines
        // were about 4 MB of resident memory per writer, idle.
        .buffered_lines_limit(BUFFERED_LINES)
        .thread_name("reviewd-log")
        .finish(to);
    guards.push(guard);
    writer
}

/// Both sinks of production's JSON lines behind one writer thread: each line is
/// written to stdout, then to the file. Two threads woke for every line, and a
/// webhook flood's lines made those wake-ups most of the server's context
/// switches. A sink that fails does not keep the line from the other.
struct Tee<A, B>(A, B);

impl<A: std::io::Write, B: std::io::Write> std::io::Write for Tee<A, B> {
    fn write(&mut self, line: &[u8]) -> std::io::Result<usize> {
        let first = self.0.write_all(line);
        let second = self.1.write_all(line);
        first.and(second).map(|()| line.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let first = self.0.flush();
        let second = self.1.flush();
        first.and(second)
    }
}

/// The JSON lines layer (stdout in production, the log file always).
fn json_layer<S, W>(to: W) -> impl tracing_subscriber::Layer<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + 'static,
{
    tracing_subscriber::fmt::layer()
        .json()
        .flatten_event(true)
        .with_current_span(true)
        // Only the request's span is ever open, so the span list repeated it on every
        // line: 40 % of a webhook's log bytes.
        .with_span_list(false)
        .with_target(false)
        .with_ansi(false)
        .with_writer(to)
}

pub fn init(config: &Config) -> LogGuard {
    let mut guards = Vec::new();
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(format!("{},actix_server=warn", config.log_level)));
    let file = RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix(LOG_FILE_PREFIX)
        .filename_suffix(LOG_FILE_SUFFIX)
        .build(&config.log_dir)
        // Without a usable LOG_DIR, start-up refuses right after this with one line
        // naming it; until then, stdout logging is enough.
        .ok();
    // In production both sinks take the same JSON line: one layer formats it once
    // and one thread writes it to each (two layers formatted every event twice).
    let (json_both, json_stdout, text_stdout, json_file) = match (config.log_format_json, file) {
        (true, Some(file)) => {
            let both = writer(Tee(std::io::stdout(), file), &mut guards);
            (Some(json_layer(both)), None, None, None)
        }
        (true, None) => {
            let stdout = writer(std::io::stdout(), &mut guards);
            (None, Some(json_layer(stdout)), None, None)
        }
        (false, file) => (
            None,
            None,
            Some(
                tracing_subscriber::fmt::layer()
                    .with_target(false)
                    .with_writer(writer(std::io::stdout(), &mut guards)),
            ),
            file.map(|file| json_layer(writer(file, &mut guards))),
        ),
    };
    let result = tracing_subscriber::registry()
        .with(filter)
        .with(json_both)
        .with(json_stdout)
        .with(text_stdout)
        .with(json_file)
        .try_init();
    // A subscriber already set (tests building several apps) is fine.
    drop(result);
    LogGuard(guards)
}

#[cfg(test)]
mod tests {
    use super::Tee;
    use std::io::Write;

    /// A sink that refuses everything (a closed stdout).
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn each_line_reaches_both_sinks() {
        let mut tee = Tee(Vec::new(), Vec::new());
        tee.write_all(b"{\"message\":\"one\"}\n").unwrap();
        tee.write_all(b"{\"message\":\"two\"}\n").unwrap();
        let expected = b"{\"message\":\"one\"}\n{\"message\":\"two\"}\n";
        assert_eq!(tee.0, expected);
        assert_eq!(tee.1, expected);
    }

    #[test]
    fn a_failing_sink_does_not_keep_the_line_from_the_other() {
        let mut tee = Tee(Closed, Vec::new());
        assert!(tee.write_all(b"line\n").is_err(), "the failure is reported");
        assert_eq!(tee.1, b"line\n");
    }
}
