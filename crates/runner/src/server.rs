//! The reviewd server's runner API, as this agent calls it; the bodies are
//! `reviewd-runner-protocol`'s, the types the server reads and answers with.

use reviewd_http::{HttpClient, HttpError};
use reviewd_runner_protocol::{
    ClaimedTask, Heartbeat, LogBatch, PendingTasksQuery, PhaseUpdate, RunnerPhase, RunnerResult,
    RunnerStatus, headers,
};
use serde::Deserialize;
use uuid::Uuid;

/// What registration tells the server about this runner.
#[derive(Debug, Clone)]
pub struct Identity {
    pub id: String,
    pub name: String,
    pub version: String,
    pub max_concurrent_jobs: u32,
    pub tags: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The server does not know this runner (a reset, or an admin removed it).
    #[error("the server does not know this runner")]
    UnknownRunner,
    /// The server no longer lets this runner act on the task (given back after a
    /// silence, or already finished).
    #[error("the task is no longer held by this runner: {0}")]
    NotHeld(String),
    #[error(transparent)]
    Http(#[from] HttpError),
}

#[derive(Deserialize)]
struct Envelope<T> {
    data: T,
}

#[derive(Debug, Clone)]
pub struct ServerClient {
    http: HttpClient,
    /// One attempt per call: for claims, which must not be repeated blindly.
    once: HttpClient,
    base: String,
    token: String,
}

impl ServerClient {
    #[must_use]
    pub fn new(http: HttpClient, once: HttpClient, base: &str, token: &str) -> Self {
        Self {
            http,
            once,
            base: base.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/api/runners{path}", self.base)
    }

    /// # Errors
    /// The server refused or could not be reached (after retries).
    pub async fn register(&self, me: &Identity) -> Result<(), ServerError> {
        let tags = me.tags.join(",");
        self.http
            .send_repeatable(|c| {
                c.post(self.url("/register"))
                    .bearer_auth(&self.token)
                    .header(headers::RUNNER_ID, &me.id)
                    .header(headers::RUNNER_NAME, &me.name)
                    .header(headers::RUNNER_VERSION, &me.version)
                    .header(
                        headers::RUNNER_MAX_CONCURRENCY,
                        me.max_concurrent_jobs.to_string(),
                    )
                    .header(headers::RUNNER_TAGS, &tags)
            })
            .await?;
        Ok(())
    }

    /// # Errors
    /// `UnknownRunner` when the server lost the registration.
    pub async fn heartbeat(
        &self,
        id: &str,
        status: RunnerStatus,
        current_jobs: u32,
    ) -> Result<(), ServerError> {
        let body = Heartbeat::new(status, i32::try_from(current_jobs).unwrap_or(i32::MAX));
        self.http
            .send_repeatable(|c| {
                c.post(self.url(&format!("/{id}/heartbeat")))
                    .bearer_auth(&self.token)
                    .json(&body)
            })
            .await
            .map_err(unknown_runner)?;
        Ok(())
    }

    /// Claims up to `limit` tasks, through a client that does not repeat the call: a
    /// claim the server made but whose answer was lost stays held by this runner
    /// until its lease ends or the runner registers again (which gives it back).
    ///
    /// # Errors
    /// As above.
    pub async fn claim(&self, id: &str, limit: u32) -> Result<Vec<ClaimedTask>, ServerError> {
        let response = self
            .once
            .send(|c| {
                c.get(self.url("/tasks/pending"))
                    .bearer_auth(&self.token)
                    .query(&PendingTasksQuery::new(id, limit))
            })
            .await
            .map_err(unknown_runner)?;
        Ok(response.json::<Envelope<Vec<ClaimedTask>>>()?.data)
    }

    /// # Errors
    /// `NotHeld` when the server took the task back.
    pub async fn phase(&self, task: Uuid, phase: RunnerPhase) -> Result<(), ServerError> {
        let body = PhaseUpdate::new(phase);
        self.http
            .send_repeatable(|c| {
                c.post(self.url(&format!("/tasks/{task}/status")))
                    .bearer_auth(&self.token)
                    .json(&body)
            })
            .await
            .map_err(not_held)?;
        Ok(())
    }

    /// Appends 1 to [`reviewd_runner_protocol::MAX_LOG_LINES`] lines.
    ///
    /// # Errors
    /// `NotHeld` when the server took the task back.
    pub async fn logs(&self, task: Uuid, lines: &[String]) -> Result<(), ServerError> {
        let body = LogBatch {
            logs: lines.to_vec(),
        };
        self.http
            .send(|c| {
                c.post(self.url(&format!("/tasks/{task}/logs")))
                    .bearer_auth(&self.token)
                    .json(&body)
            })
            .await
            .map_err(not_held)?;
        Ok(())
    }

    /// Repeated on 5xx and timeouts: the server accepts one result per task, so a
    /// repeat of one that was recorded is refused with 409 and changes nothing.
    ///
    /// # Errors
    /// `NotHeld` when the server refused it as not held (or already recorded).
    pub async fn result(&self, task: Uuid, result: &RunnerResult) -> Result<(), ServerError> {
        self.http
            .send_repeatable(|c| {
                c.post(self.url(&format!("/tasks/{task}/result")))
                    .bearer_auth(&self.token)
                    .json(result)
            })
            .await
            .map_err(not_held)?;
        Ok(())
    }

    /// Marks this runner offline; the server gives back any task it still holds.
    ///
    /// # Errors
    /// As above.
    pub async fn deregister(&self, id: &str) -> Result<(), ServerError> {
        self.http
            .send(|c| {
                c.delete(self.url(&format!("/{id}")))
                    .bearer_auth(&self.token)
            })
            .await
            .map_err(unknown_runner)?;
        Ok(())
    }
}

fn unknown_runner(e: HttpError) -> ServerError {
    match e.status() {
        Some(404) => ServerError::UnknownRunner,
        _ => ServerError::Http(e),
    }
}

fn not_held(e: HttpError) -> ServerError {
    match e.status() {
        Some(404 | 409) => ServerError::NotHeld(e.to_string()),
        _ => ServerError::Http(e),
    }
}
