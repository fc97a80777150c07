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

    /// Writes `head`'s files into the workspace, for the analyzers to read.
    ///
    /// # Errors
    /// git failed (the commit was not fetched).
    pub async fn check_out(&self, head: &str) -> Result<Output, GitError> {
        self.run(
            "checkout",
            &[
                "-c",
                "advice.detachedHead=false",
                "checkout",
                "--quiet",
                "--force",
                head,
            ],
        )
        .await
    }

    /// The directory the checkout is in.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
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

    /// Every file of `commit`: `(path, blob id, size)` (`git ls-tree -r -l`;
    /// submodules and symlinks left out).
    ///
    /// # Errors
    /// git failed (an unknown commit).
    pub async fn tree(&self, commit: &str) -> Result<Vec<(String, String, u64)>, GitError> {
        let output = self
            .output(
                "ls-tree",
                &["ls-tree", "-r", "-l", "-z", "--full-tree", commit],
            )
            .await?;
        Ok(parse_tree(&output.stdout))
    }

    /// The bytes of the given blobs, in order, read by one `git cat-file --batch`.
    ///
    /// # Errors
    /// git failed or printed something else than the blobs asked for.
    pub async fn blobs(&self, ids: &[String]) -> Result<Vec<Vec<u8>>, GitError> {
        use tokio::io::AsyncWriteExt as _;
        let mut cmd = self.command(&["cat-file", "--batch"]);
        cmd.stdin(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| GitError::Spawn(e.to_string()))?;
        let mut stdin = child
            .stdin
            .take()
            .ok_or_else(|| GitError::Spawn("no stdin".into()))?;
        let input = ids.iter().fold(String::new(), |mut acc, id| {
            acc.push_str(id);
            acc.push('\n');
            acc
        });
        let writer = tokio::spawn(async move {
            let _ = stdin.write_all(input.as_bytes()).await;
            // Dropping stdin ends git's input.
        });
        let output = child
            .wait_with_output()
            .await
            .map_err(|e| GitError::Spawn(e.to_string()))?;
        let _ = writer.await;
        if !output.status.success() {
            return Err(GitError::Failed {
                step: "cat-file",
                message: last_lines(&String::from_utf8_lossy(&output.stderr)),
            });
        }
        parse_batch(&output.stdout, ids.len()).ok_or(GitError::Failed {
            step: "cat-file",
            message: "unexpected output".into(),
        })
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

/// `git ls-tree -r -l -z` output: `<mode> blob <id> <size>\t<path>\0` entries;
/// anything but a blob (a submodule's commit) is left out, and so are symlinks.
fn parse_tree(out: &[u8]) -> Vec<(String, String, u64)> {
    out.split(|b| *b == 0)
        .filter_map(|entry| {
            let entry = std::str::from_utf8(entry).ok()?;
            let (meta, path) = entry.split_once('\t')?;
            let mut parts = meta.split_whitespace();
            let mode = parts.next()?;
            let kind = parts.next()?;
            let id = parts.next()?;
            let size = parts.next()?.parse().ok()?;
            (kind == "blob" && mode != "120000").then(|| (path.to_owned(), id.to_owned(), size))
        })
        .collect()
}

/// `git cat-file --batch` output: `<id> blob <size>\n<bytes>\n` per object asked.
fn parse_batch(mut out: &[u8], expected: usize) -> Option<Vec<Vec<u8>>> {
    let mut blobs = Vec::with_capacity(expected);
    while !out.is_empty() {
        let end = out.iter().position(|b| *b == b'\n')?;
        let header = std::str::from_utf8(&out[..end]).ok()?;
        let size: usize = header.rsplit(' ').next()?.parse().ok()?;
        let body = out.get(end + 1..end + 1 + size)?;
        blobs.push(body.to_vec());
        out = out.get(end + 2 + size..).unwrap_or_default();
    }
    (blobs.len() == expected).then_some(blobs)
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
    fn trees_and_batches_are_read_from_git_output() {
        let tree = b"100644 blob aaa 12\tsrc/a.rs\x00120000 blob bbb 5\tlink\x00160000 commit ccc -\tsub\x00100755 blob ddd 3\tbin/run\x00";
        assert_eq!(
            parse_tree(tree),
            vec![
                ("src/a.rs".to_owned(), "aaa".to_owned(), 12),
                ("bin/run".to_owned(), "ddd".to_owned(), 3),
            ]
        );
        let batch = b"aaa blob 3\nabc\nddd blob 0\n\n";
        assert_eq!(
            parse_batch(batch, 2),
            Some(vec![b"abc".to_vec(), Vec::new()])
        );
        assert_eq!(
            parse_batch(batch, 3),
            None,
            "a missing object is not silently dropped"
        );
    }

    #[test]
    fn only_the_tail_of_a_complaint_is_kept() {
        assert_eq!(last_lines("a\n\nb\nc\nd\n"), "b / c / d");
    }
}
