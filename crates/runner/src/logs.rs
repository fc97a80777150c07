//! A task's log: lines kept in order, secrets masked, sent to the server in batches
//! of at most 200 while the task runs; what is left goes with the result.

use crate::server::ServerClient;
use std::sync::Mutex;
use uuid::Uuid;

/// Most lines one call may carry (the server's limit).
pub const BATCH: usize = reviewd_runner_protocol::MAX_LOG_LINES;

#[derive(Debug)]
pub struct TaskLog {
    task: Uuid,
    secrets: Vec<String>,
    pending: Mutex<Vec<String>>,
}

impl TaskLog {
    /// `secrets` are masked wherever they appear in a line.
    #[must_use]
    pub fn new(task: Uuid, secrets: Vec<String>) -> Self {
        Self {
            task,
            secrets: secrets.into_iter().filter(|s| s.len() >= 4).collect(),
            pending: Mutex::new(Vec::new()),
        }
    }

    pub fn line(&self, text: impl Into<String>) {
        let mut text: String = text.into();
        for secret in &self.secrets {
            if text.contains(secret.as_str()) {
                text = text.replace(secret.as_str(), "***");
            }
        }
        tracing::info!(task.id = %self.task, "{text}");
        if let Ok(mut pending) = self.pending.lock() {
            pending.push(text);
        }
    }

    pub fn lines(&self, texts: impl IntoIterator<Item = String>) {
        for t in texts {
            self.line(t);
        }
    }

    fn take(&self, most: usize) -> Vec<String> {
        self.pending.lock().map_or_else(
            |_| Vec::new(),
            |mut pending| {
                let n = pending.len().min(most);
                pending.drain(..n).collect()
            },
        )
    }

    /// Sends what is pending, a batch at a time. A batch the server refused is put
    /// back in front, so it goes with the next flush or the result.
    pub async fn flush(&self, server: &ServerClient) {
        loop {
            let batch = self.take(BATCH);
            if batch.is_empty() {
                return;
            }
            if let Err(e) = server.logs(self.task, &batch).await {
                tracing::warn!(task.id = %self.task, error = %e, "runner.logs_not_sent");
                if let Ok(mut pending) = self.pending.lock() {
                    pending.splice(0..0, batch);
                }
                return;
            }
        }
    }

    /// The lines not sent yet (at most one batch: older ones are dropped, a log is
    /// not worth losing a result for), for the result's `logs`.
    pub fn remainder(&self) -> Vec<String> {
        let mut all = self.take(usize::MAX);
        if all.len() > BATCH {
            let dropped = all.len() - BATCH + 1;
            all.drain(..dropped);
            all.insert(0, format!("({dropped} earlier line(s) not delivered)"));
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked_and_the_remainder_fits_one_batch() {
        let log = TaskLog::new(Uuid::nil(), vec!["s3cr3t-token".into(), "ab".into()]);
        log.line("cloning with s3cr3t-token from x");
        log.line("ab stays: too short to be a secret");
        let lines = log.remainder();
        assert_eq!(lines[0], "cloning with *** from x");
        assert_eq!(lines[1], "ab stays: too short to be a secret");

        for i in 0..250 {
            log.line(format!("line {i}"));
        }
        let lines = log.remainder();
        assert_eq!(lines.len(), BATCH);
        assert_eq!(lines[0], "(51 earlier line(s) not delivered)");
        assert_eq!(lines.last().map(String::as_str), Some("line 249"));
        assert!(log.remainder().is_empty());
    }
}
