//! The task's analyzers, run in the checkout before any file goes to the model;
//! and a file's review when there is no model to ask.

use super::{FileReview, Work};
use crate::git::Workspace;
use crate::tools::{self, sandbox::Sandbox};
use reviewd_domain::review::tools::RoundTools;
use reviewd_runner_protocol::{AssignedFile, ChangeType, RunnerFileResult, RunnerOutcome};
use std::time::Duration;

impl Work<'_> {
    /// The findings of the tools `.reviewd.yml` names (the defaults when it names
    /// none) on the files with a diff; none when the checkout fails.
    pub(super) async fn analyze(
        &self,
        workspace: &Workspace,
        diffs: &[(&AssignedFile, Result<Option<String>, String>)],
    ) -> RoundTools {
        let settings = crate::context::tools(self.task.tools.clone());
        let mut round = RoundTools {
            found: Vec::new(),
            post: settings.post,
        };
        let files: Vec<String> = diffs
            .iter()
            .filter(|(f, diff)| f.change_type != ChangeType::Deleted && matches!(diff, Ok(Some(_))))
            .map(|(f, _)| f.file_path.clone())
            .collect();
        if files.is_empty() || (settings.tools().is_empty() && settings.commands.is_empty()) {
            return round;
        }
        match workspace.check_out(&self.task.commit_sha).await {
            Ok(out) => self.log.lines(out),
            Err(e) => {
                self.log.line(format!(
                    "the analyzers did not run: checking out the head failed: {e}"
                ));
                return round;
            }
        }
        let (planned, skipped) = tools::plan(
            workspace.dir(),
            &files,
            &settings,
            self.ctx.config.tools_repo_commands,
        );
        self.log.lines(skipped);
        if planned.is_empty() {
            return round;
        }
        let home = self
            .ctx
            .config
            .work_root()
            .join(format!("{}-tools-home", self.task.id));
        let sandbox = Sandbox {
            dir: workspace.dir().to_path_buf(),
            home: home.clone(),
            timeout: Duration::from_secs(u64::from(settings.timeout_secs())),
            memory_mb: settings.memory_mb(),
        };
        self.log.line(format!(
            "running {} analyzer(s), each within {} s and {} MiB, {}",
            planned.len(),
            settings.timeout_secs(),
            settings.memory_mb(),
            if Sandbox::isolates_network() {
                "without network"
            } else {
                "with the network this machine gives (unshare --net is not permitted here)"
            }
        ));
        // A third of the lease: the model's review and the report need the rest.
        let budget = Duration::from_millis(self.task.timeout_ms / 3);
        let analysis = tools::run(&sandbox, planned, budget).await;
        let _ = tokio::fs::remove_dir_all(&home).await;
        self.log.lines(analysis.log);
        round.found = analysis.findings;
        round
    }

    /// A file with no model to ask: the findings that need no confirmation.
    pub(super) fn tools_only(
        &self,
        file: &AssignedFile,
        diff: &Result<Option<String>, String>,
        tools: &RoundTools,
    ) -> RunnerFileResult {
        // A binary file has nothing to scan; one not read is not reviewed, as on
        // the model's path.
        let (status, error) = match diff {
            Ok(_) => (RunnerOutcome::Success, None),
            Err(e) => (RunnerOutcome::Failed, Some(e.clone())),
        };
        let Ok(Some(diff)) = diff else {
            let (file_path, comments) = (file.file_path.clone(), Vec::new());
            let (summary, context) = (None, None);
            return RunnerFileResult {
                file_path,
                status,
                comments,
                summary,
                error,
                context,
            };
        };
        let found = tools.with_secrets_of(&file.file_path, diff);
        let review = FileReview::new(diff, usize::MAX);
        let verdict = review.tools_only(&file.file_path, &found, tools.post);
        self.log.line(format!(
            "{}: {} finding(s) posted without a model",
            file.file_path,
            verdict.comments.len()
        ));
        super::work::file_result(&file.file_path, verdict)
    }
}
