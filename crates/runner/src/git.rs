//! The task's workspace: a shallow clone of the two commits the review compares,
//! and the diff of each file computed here, so the code never leaves this machine
//! except as the diff pieces sent to the model.
//!
//! Credentials go to git only through environment-scoped configuration
//! (`GIT_CONFIG_COUNT`/`_KEY_n`/`_VALUE_n`): never in the URL, the command line, the
//! clone's `.git/config` or a log line.

use base64::Engine as _;
use reviewd_runner_protocol::CloneCredentials;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::process::Command;

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git {step} failed: {message}")]
    Failed { step: &'static str, message: String },
    #[error("could not run git: {0}")]
    Spawn(String),
}

/// A per-task directory (the job removes it when the task is done, also on failure).
#[derive(Debug)]
pub struct Workspace {
    dir: PathBuf,
    git: String,
    /// `http.extraHeader` for HTTPS clones with credentials.
    auth_header: Option<String>,
}

/// What a git command printed, for the task's log.
pub type Output = Vec<String>;

impl Workspace {
    /// Creates an empty repository in `root/<name>`, replacing a stale one left by
    /// an earlier crash.
    ///
    /// # Errors
    /// The directory cannot be made, or git cannot run.
    pub async fn prepare(
        root: &Path,
        name: &str,
        git: &str,
        credentials: Option<&CloneCredentials>,
    ) -> Result<(Self, Output), GitError> {
        let dir = root.join(name);
        if tokio::fs::try_exists(&dir).await.unwrap_or(false) {
            let _ = tokio::fs::remove_dir_all(&dir).await;
        }
        tokio::fs::create_dir_all(&dir)
            .await
            .map_err(|e| GitError::Spawn(format!("creating {}: {e}", dir.display())))?;
        let auth_header = credentials.map(|c| {
            let token = base64::engine::general_purpose::STANDARD
                .encode(format!("{}:{}", c.username, c.password));
            format!("Authorization: Basic {token}")
        });
        let workspace = Self {
            dir,
            git: git.to_owned(),
            auth_header,
        };
        let out = workspace.run("init", &["init", "--quiet"]).await?;
        Ok((workspace, out))
    }

    /// Fetches exactly the two commits (depth 1 each), so a large history costs
    /// nothing; the diff only needs their trees.
    ///
    /// # Errors
    /// The remote refused, a commit does not exist, or the network failed.
    pub async fn fetch(&self, url: &str, base: &str, head: &str) -> Result<Output, GitError> {
        let mut out = self
            .run("remote add", &["remote", "add", "origin", url])
            .await?;
        let mut wanted = vec![
            "-c",
            "protocol.version=2",
            "fetch",
            "--quiet",
            "--no-tags",
            "--depth=1",
            "origin",
            head,
        ];
        if base != head {
            wanted.push(base);
        }
        out.extend(self.run("fetch", &wanted).await?);
        Ok(out)
    }

    /// The unified diff of one file between the two commits, hunks only (as the
    /// platforms show it); `None` for a binary file.
    ///
    /// # Errors
    /// git failed.
    pub async fn file_diff(
        &self,
        base: &str,
        head: &str,
        path: &str,
        old_path: Option<&str>,
    ) -> Result<Option<String>, GitError> {
        let mut args = vec![
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--find-renames",
            base,
            head,
            "--",
            path,
        ];
        if let Some(old) = old_path.filter(|o| *o != path) {
            args.push(old);
        }
        let text = self.stdout("diff", &args).await?;
        Ok(hunks_only(&text))
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.git);
        cmd.args(args)
            .current_dir(&self.dir)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_ASKPASS", "true")
            .env_remove("GIT_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(header) = &self.auth_header {
            cmd.env("GIT_CONFIG_COUNT", "1")
                .env("GIT_CONFIG_KEY_0", "http.extraHeader")
                .env("GIT_CONFIG_VALUE_0", header);
        }
        cmd
    }

    async fn output(
        &self,
        step: &'static str,
        args: &[&str],
    ) -> Result<std::process::Output, GitError> {
        let output = self
            .command(args)
            .output()
            .await
            .map_err(|e| GitError::Spawn(e.to_string()))?;
        if output.status.success() {
            Ok(output)
        } else {
            Err(GitError::Failed {
                step,
                message: last_lines(&String::from_utf8_lossy(&output.stderr)),
            })
        }
    }

    async fn run(&self, step: &'static str, args: &[&str]) -> Result<Output, GitError> {
        let output = self.output(step, args).await?;
        Ok(String::from_utf8_lossy(&output.stderr)
            .lines()
            .chain(String::from_utf8_lossy(&output.stdout).lines())
            .filter(|l| !l.trim().is_empty())
            .map(|l| format!("git {step}: {l}"))
            .collect())
    }

    async fn stdout(&self, step: &'static str, args: &[&str]) -> Result<String, GitError> {
        let output = self.output(step, args).await?;
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// The last few lines of git's complaint (the useful part).
fn last_lines(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(3);
    lines[start..].join(" / ")
}

/// Drops git's `diff --git`/`index`/`---`/`+++` header so the text starts at the
/// first hunk, as GitLab and GitHub give it; `None` when there is no hunk (binary).
fn hunks_only(diff: &str) -> Option<String> {
    let start = if diff.starts_with("@@") {
        0
    } else {
        diff.find("\n@@")? + 1
    };
    Some(diff[start..].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_dropped_and_binary_files_have_no_diff() {
        let text = "diff --git a/x.rs b/x.rs\nindex 1..2 100644\n--- a/x.rs\n+++ b/x.rs\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(hunks_only(text).as_deref(), Some("@@ -1 +1 @@\n-a\n+b\n"));
        assert_eq!(
            hunks_only("diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n"),
            None
        );
        assert_eq!(hunks_only(""), None);
    }

    #[test]
    fn only_the_tail_of_a_complaint_is_kept() {
        assert_eq!(last_lines("a\n\nb\nc\nd\n"), "b / c / d");
    }
}
