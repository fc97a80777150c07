//! The runner's settings, from the environment (or the same flags).

use clap::Parser;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, Parser)]
#[command(
    name = "reviewd-runner",
    version,
    about = "Claims and reviews merge requests for a reviewd server"
)]
pub struct RunnerConfig {
    /// Base URL of the reviewd server, e.g. https://reviewd.example.com.
    #[arg(long, env = "RUNNER_SERVER_URL")]
    pub server_url: String,
    /// An API key of a reviewd user (Settings → API Keys).
    #[arg(long, env = "RUNNER_TOKEN", hide_env_values = true)]
    pub token: String,
    /// Display name; also the runner id unless RUNNER_ID is set.
    #[arg(long, env = "RUNNER_NAME")]
    pub name: Option<String>,
    /// Stable id of this runner (keep it across restarts so the server updates the
    /// same record).
    #[arg(long, env = "RUNNER_ID")]
    pub id: Option<String>,
    /// Tasks run at once (the server's default for a runner that does not say is 5).
    #[arg(long, env = "RUNNER_MAX_CONCURRENT_JOBS", default_value_t = 5)]
    pub max_concurrent_jobs: u32,
    /// Comma-separated tags; a task requiring tags goes only to runners having them all.
    #[arg(long, env = "RUNNER_TAGS", default_value = "")]
    pub tags: String,
    /// Where task workspaces are made (one directory per task, removed after it).
    #[arg(long, env = "RUNNER_WORK_DIR")]
    pub work_dir: Option<PathBuf>,
    #[arg(long, env = "RUNNER_POLL_INTERVAL_MS", default_value_t = 2_000)]
    pub poll_interval_ms: u64,
    /// Keep it well under the server's RUNNER_HEARTBEAT_TIMEOUT_MS (60 s by default).
    #[arg(long, env = "RUNNER_HEARTBEAT_INTERVAL_MS", default_value_t = 15_000)]
    pub heartbeat_interval_ms: u64,
    /// How long a stop waits for running tasks before reporting them failed.
    #[arg(long, env = "RUNNER_SHUTDOWN_GRACE_SECS", default_value_t = 60)]
    pub shutdown_grace_secs: u64,
    /// Files of one task reviewed at once.
    #[arg(long, env = "RUNNER_FILE_CONCURRENCY", default_value_t = 3)]
    pub file_concurrency: usize,
    /// Overrides the AI endpoint the task names (a runner that reaches the model by
    /// another address).
    #[arg(long, env = "RUNNER_AI_ENDPOINT")]
    pub ai_endpoint: Option<String>,
    /// Overrides the AI API key the task carries.
    #[arg(long, env = "RUNNER_AI_API_KEY", hide_env_values = true)]
    pub ai_api_key: Option<String>,
    /// Timeout of each call to the server or the AI provider, in seconds.
    #[arg(long, env = "RUNNER_HTTP_TIMEOUT_SECS", default_value_t = 120)]
    pub http_timeout_secs: u64,
    /// The git program to run.
    #[arg(long, env = "RUNNER_GIT", default_value = "git")]
    pub git: String,
    /// Runs the repository's own code as analyzers: `.reviewd.yml`'s
    /// `tools.commands`, the project's `node_modules/.bin/eslint`, and clippy
    /// (which builds the project). They come
    /// from the merge request's head, which its author writes: only for runners
    /// that review trusted repositories.
    #[arg(long, env = "RUNNER_TOOLS_REPO_COMMANDS", default_value_t = false)]
    pub tools_repo_commands: bool,
}

impl RunnerConfig {
    /// The settings with an empty optional variable taken as unset, as the server
    /// takes its own: a manifest or env file may list `RUNNER_AI_ENDPOINT=` without
    /// it replacing every task's endpoint with "".
    #[must_use]
    pub fn without_empty(mut self) -> Self {
        for value in [
            &mut self.name,
            &mut self.id,
            &mut self.ai_endpoint,
            &mut self.ai_api_key,
        ] {
            if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
                *value = None;
            }
        }
        if self
            .work_dir
            .as_ref()
            .is_some_and(|d| d.as_os_str().is_empty())
        {
            self.work_dir = None;
        }
        self
    }

    /// The runner's id: RUNNER_ID, else RUNNER_NAME, else the host name.
    #[must_use]
    pub fn runner_id(&self) -> String {
        self.id
            .clone()
            .or_else(|| self.name.clone())
            .unwrap_or_else(host_name)
    }

    #[must_use]
    pub fn runner_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.runner_id())
    }

    #[must_use]
    pub fn tag_list(&self) -> Vec<String> {
        self.tags
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect()
    }

    #[must_use]
    pub fn work_root(&self) -> PathBuf {
        self.work_dir
            .clone()
            .unwrap_or_else(|| std::env::temp_dir().join("reviewd-runner"))
    }

    #[must_use]
    pub fn poll_interval(&self) -> Duration {
        Duration::from_millis(self.poll_interval_ms.max(100))
    }

    #[must_use]
    pub fn heartbeat_interval(&self) -> Duration {
        Duration::from_millis(self.heartbeat_interval_ms.max(100))
    }
}

fn host_name() -> String {
    std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.trim().is_empty())
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_owned())
        })
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "reviewd-runner".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> RunnerConfig {
        let mut all = vec!["reviewd-runner", "--server-url", "http://s", "--token", "k"];
        all.extend_from_slice(args);
        RunnerConfig::parse_from(all)
    }

    #[test]
    fn id_falls_back_to_the_name_and_tags_are_trimmed() {
        let c = parse(&["--name", "gpu-1", "--tags", " linux, gpu ,,"]);
        assert_eq!(c.runner_id(), "gpu-1");
        assert_eq!(c.runner_name(), "gpu-1");
        assert_eq!(c.tag_list(), vec!["linux", "gpu"]);
        let c = parse(&["--name", "gpu-1", "--id", "r-7"]);
        assert_eq!(c.runner_id(), "r-7");
        assert_eq!(c.runner_name(), "gpu-1");
    }

    #[test]
    fn an_empty_optional_variable_is_unset() {
        let c = parse(&[
            "--ai-endpoint",
            "",
            "--ai-api-key",
            " ",
            "--name",
            "gpu-1",
            "--id",
            "",
        ])
        .without_empty();
        assert_eq!(c.ai_endpoint, None, "the task's endpoint stays");
        assert_eq!(c.ai_api_key, None);
        assert_eq!(c.runner_id(), "gpu-1");
        let c = parse(&["--ai-endpoint", "http://ai:1"]).without_empty();
        assert_eq!(c.ai_endpoint.as_deref(), Some("http://ai:1"));
    }
}
