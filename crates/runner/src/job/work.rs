//! The part of a job that can be cut short: fetch the two commits, gather each file's
//! context, review the assigned files through the model, and write the MR's summary; each
//! step timed and logged.

use super::convert::{change_type, severity_dto};
use super::*;

impl Work<'_> {
    async fn phase(&self, phase: RunnerPhase) -> Result<(), String> {
        match self.ctx.server.phase(self.task.id, phase).await {
            Ok(()) => Ok(()),
            // Taken back (this runner looked silent): stop, another runner has it.
            Err(ServerError::NotHeld(e)) => Err(format!("the server took the task back: {e}")),
            Err(e) => {
                tracing::warn!(task.id = %self.task.id, error = %e, "runner.phase_not_reported");
                Ok(())
            }
        }
    }

    fn time(&self, since: Instant, slot: impl FnOnce(&mut Timings) -> &mut u64) {
        if let Ok(mut t) = self.timings.lock() {
            *slot(&mut t) = ms(since);
        }
    }

    pub(super) async fn run(&self) -> Result<Reviewed, String> {
        let (task, config) = (self.task, &self.ctx.config);
        self.phase(RunnerPhase::Preparing).await?;
        let started = Instant::now();
        let (workspace, out) = Workspace::prepare(
            &config.work_root(),
            &task.id.to_string(),
            &config.git,
            task.clone_credentials.as_ref(),
        )
        .await
        .map_err(|e| e.to_string())?;
        self.log.lines(out);
        self.time(started, |t| &mut t.prepare_ms);

        self.phase(RunnerPhase::Cloning).await?;
        let started = Instant::now();
        self.log.line(format!(
            "fetching {} and {} (depth 1)",
            short(&task.base_sha),
            short(&task.commit_sha)
        ));
        let out = workspace
            .fetch(&task.repository_url, &task.base_sha, &task.commit_sha)
            .await
            .map_err(|e| e.to_string())?;
        self.log.lines(out);
        self.time(started, |t| &mut t.clone_ms);
        self.log.line(format!("fetched in {} ms", ms(started)));

        self.phase(RunnerPhase::Reviewing).await?;
        let started = Instant::now();
        let reviewed = self.review(Arc::new(workspace)).await?;
        self.time(started, |t| &mut t.review_ms);
        Ok(reviewed)
    }

    async fn review(&self, workspace: Arc<Workspace>) -> Result<Reviewed, String> {
        let (task, config) = (self.task, &self.ctx.config);
        let endpoint = config
            .ai_endpoint
            .clone()
            .or_else(|| task.ai.endpoint.clone());
        let mut diffs = Vec::with_capacity(task.files.len());
        for file in &task.files {
            let diff = workspace
                .file_diff(
                    &task.base_sha,
                    &task.commit_sha,
                    &file.file_path,
                    file.old_path.as_deref(),
                )
                .await
                .map_err(|e| e.to_string());
            diffs.push((file, diff));
        }
        let tools = self.analyze(&workspace, &diffs).await;
        let Some(endpoint) = endpoint else {
            // The model is switched off: what needs no model (the secrets scan, and
            // every finding under `post: all`) is still reported.
            self.log.line(
                "no AI endpoint (the task names none and RUNNER_AI_ENDPOINT is not set): only the analyzers' findings are reported",
            );
            let files = diffs
                .iter()
                .map(|(file, diff)| self.tools_only(file, diff, &tools))
                .collect();
            return Ok(Reviewed {
                files,
                retry_reason: None,
                summary: None,
                context: None,
            });
        };
        let key = config
            .ai_api_key
            .clone()
            .or_else(|| task.ai.api_key.clone())
            .map(|k| SecretString::new(&k));
        // A stored configuration's timeout and concurrency limit hold on the runner
        // too; the built-in one leaves the runner's own.
        let policy = RetryPolicy {
            timeout: task
                .ai
                .timeout_secs
                .map_or(self.ctx.ai_policy.timeout, Duration::from_secs),
            ..self.ctx.ai_policy
        };
        let concurrency = config
            .file_concurrency
            .min(task.ai.max_concurrency.unwrap_or(usize::MAX))
            .max(1);
        let http = HttpClient::new(policy).map_err(|e| e.to_string())?;
        // The server's fallbacks are not sent to runners: a runner asks its one model,
        // and the server retries the round when every file found it unavailable.
        let ai = ModelChain::single(ChainLink {
            provider: Arc::new(OpenAiProvider::new(http, &task.ai.provider, &endpoint, key)),
            name: task.ai.provider.clone(),
            model: task.ai.model.clone(),
            prices: AiPrices::default(),
        });
        let settings = AskSettings {
            max_tokens: task.ai.max_tokens,
            temperature: task.ai.temperature,
            max_diff_chars: task.ai.max_diff_chars.max(1_000),
            answer_attempts: ANSWER_ATTEMPTS,
        };
        let round = self.gather(workspace, &diffs).await;
        // Futures made first, then run a few at once (a closure inside the stream
        // would not be `Send` for every lifetime tokio asks about).
        let pending: Vec<_> = diffs
            .iter()
            .map(|(file, diff)| {
                self.review_file((&ai, &settings), (&round, &tools), file, diff.clone())
            })
            .collect();
        let results: Vec<(RunnerFileResult, Option<String>)> = futures_util::stream::iter(pending)
            .buffered(concurrency)
            .collect()
            .await;
        // As on the server: another attempt only when every file failed because the
        // provider was unavailable; otherwise the reviewed files' comments count.
        let retry_reason = if !results.is_empty() && results.iter().all(|(_, r)| r.is_some()) {
            results.iter().find_map(|(_, r)| r.clone())
        } else {
            None
        };
        let files: Vec<RunnerFileResult> = results.into_iter().map(|(f, _)| f).collect();
        let summary = if retry_reason.is_none() {
            self.summarize(&ai, &settings, &round, &files).await
        } else {
            None
        };
        Ok(Reviewed {
            files,
            retry_reason,
            summary,
            context: Some(crate::context::stats(round.stats())),
        })
    }

    /// The round's context, read from the clone.
    async fn gather(
        &self,
        workspace: Arc<Workspace>,
        diffs: &[(&AssignedFile, Result<Option<String>, String>)],
    ) -> RoundContext {
        let task = self.task;
        let settings = crate::context::settings(task.context.clone());
        let reader = CodeReader::new(
            Arc::new(CheckoutSource::new(workspace)),
            self.ctx.caches.clone(),
            task.project_id.to_string(),
            &settings,
        );
        let files: Vec<FileDiff> = diffs
            .iter()
            .map(|(f, diff)| FileDiff {
                new_path: f.file_path.clone(),
                old_path: f.old_path.clone(),
                change_type: change_type(f.change_type),
                diff: diff.as_ref().ok().cloned().flatten(),
            })
            .collect();
        let reviewed: Vec<String> = files
            .iter()
            .filter(|f| f.diff.is_some())
            .map(|f| f.new_path.clone())
            .collect();
        let request = RoundRequest {
            mr_title: &task.mr_title,
            mr_description: task.mr_description.as_deref(),
            base: &task.base_sha,
            head: &task.commit_sha,
            files: &files,
            reviewed: &reviewed,
        };
        let round = context::prepare(
            request,
            Some(&reader),
            Some(self.ctx.analyzer.as_ref()),
            &settings,
        )
        .await;
        let stats = round.stats();
        self.log.line(format!(
            "context: {} file(s) indexed ({} lines), {} guidance file(s), {} read(s), {} ms",
            stats.indexed_files,
            stats.indexed_lines,
            stats.guidance.len(),
            stats.calls,
            stats.elapsed_ms
        ));
        round
    }

    /// The note's summary from the files' results; `None` when it is not worth a
    /// call or the call fails (the server then uses the files' own summaries).
    async fn summarize(
        &self,
        ai: &ModelChain,
        settings: &AskSettings,
        round: &RoundContext,
        files: &[RunnerFileResult],
    ) -> Option<protocol::MrSummary> {
        let outcomes: Vec<FileOutcome> = files
            .iter()
            .map(|f| FileOutcome {
                path: f.file_path.clone(),
                summary: f.summary.clone().unwrap_or_default(),
                comments: f
                    .comments
                    .iter()
                    .map(|c| {
                        (
                            severity(c.severity),
                            u32::try_from(c.line).unwrap_or(0),
                            c.message.clone(),
                        )
                    })
                    .collect(),
                failed: f.status == RunnerOutcome::Failed,
            })
            .collect();
        if !mr_summary::worth_a_call(&outcomes) {
            return None;
        }
        match mr_summary::summarize(ai, settings, round, &outcomes, self).await {
            Ok(summary) => Some(crate::context::summary(summary)),
            Err(e) => {
                self.log.line(format!("the summary call failed: {e}"));
                None
            }
        }
    }

    /// One file; the second member says the provider was unavailable.
    async fn review_file(
        &self,
        (ai, settings): (&ModelChain, &AskSettings),
        (round, tools): (&RoundContext, &RoundTools),
        file: &AssignedFile,
        diff: Result<Option<String>, String>,
    ) -> (RunnerFileResult, Option<String>) {
        let task = self.task;
        let failed = |error: String| RunnerFileResult {
            file_path: file.file_path.clone(),
            status: RunnerOutcome::Failed,
            comments: Vec::new(),
            summary: None,
            error: Some(error),
            context: None,
        };
        let diff = match diff {
            Ok(Some(diff)) => diff,
            Ok(None) => {
                self.log.line(format!(
                    "{}: no text diff, nothing to review",
                    file.file_path
                ));
                let result = RunnerFileResult {
                    file_path: file.file_path.clone(),
                    status: RunnerOutcome::Success,
                    comments: Vec::new(),
                    summary: None,
                    error: None,
                    context: None,
                };
                return (result, None);
            }
            Err(e) => return (failed(e), None),
        };
        let review = FileReview::new(&diff, settings.max_diff_chars);
        self.log.line(format!(
            "{}: {} line(s) added, {} prompt(s)",
            file.file_path,
            review.added_lines(),
            review.prompts()
        ));
        let file_rules = rules::for_file(&self.rules, &file.file_path);
        let found = tools.with_secrets_of(&file.file_path, &diff);
        let context = FileContext {
            round,
            system: &task.system_prompt,
            rules: &file_rules,
            path: &file.file_path,
            change_type: change_type(file.change_type),
            tools: &found,
            post: tools.post,
        };
        let verdict = review.run(ai, settings, context, self).await;
        let unavailable = verdict.ai_unavailable();
        let result = match verdict.error {
            Some(e) => failed(e.to_string()),
            None => file_result(&file.file_path, verdict),
        };
        let retry = unavailable.then(|| {
            format!(
                "the AI provider was unavailable: {}",
                result.error.clone().unwrap_or_default()
            )
        });
        (result, retry)
    }
}

/// Each model call counted (tokens) and logged.
#[async_trait::async_trait]
impl CallRecorder for Work<'_> {
    async fn record(&self, call: ModelCall<'_>) {
        match (call.completion, call.error) {
            (Some(c), error) => {
                self.tokens
                    .fetch_add(u64::from(c.usage.total), Ordering::Relaxed);
                self.prompt_tokens
                    .fetch_add(u64::from(c.usage.prompt), Ordering::Relaxed);
                self.completion_tokens
                    .fetch_add(u64::from(c.usage.completion), Ordering::Relaxed);
                self.cached_tokens
                    .fetch_add(u64::from(c.usage.cached), Ordering::Relaxed);
                self.log.line(format!(
                    "{}: model {} answered in {} ms, {} token(s){}",
                    call.file_path,
                    c.model,
                    c.duration.as_millis(),
                    c.usage.total,
                    error
                        .map(|e| format!(", unusable: {e}"))
                        .unwrap_or_default()
                ));
            }
            (None, error) => self.log.line(format!(
                "{}: model call failed after {} ms: {}",
                call.file_path,
                call.elapsed.as_millis(),
                error.unwrap_or_default()
            )),
        }
    }
}

/// A reviewed file as the result reports it.
pub(super) fn file_result(path: &str, verdict: FileVerdict) -> RunnerFileResult {
    RunnerFileResult {
        file_path: path.to_owned(),
        status: RunnerOutcome::Success,
        comments: verdict
            .comments
            .into_iter()
            .map(|c| RunnerComment {
                line: i64::from(c.line),
                severity: severity_dto(c.severity),
                message: c.message,
                suggestion: c.suggestion.map(|s| RunnerSuggestion {
                    start_line: i64::from(s.start_line),
                    end_line: i64::from(s.end_line),
                    code: s.code,
                }),
            })
            .collect(),
        summary: Some(verdict.summary).filter(|s| !s.is_empty()),
        error: None,
        context: Some(crate::context::report(verdict.context)),
    }
}
