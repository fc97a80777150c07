//! Reviewing one file of a finished review again.

use super::ReviewEngine;
use crate::ErrorCode;
use crate::model::review::PlacedComment;
use crate::model::{ReviewFileId, ReviewId};
use crate::services::ServiceError;
use std::collections::HashSet;

impl ReviewEngine {
    /// Re-runs the review of one file at the review's current head, posting only
    /// comments not made before. Returns how many new comments it added.
    ///
    /// # Errors
    /// `NotFound` for an unknown review or file; `BadRequest` when the file is no
    /// longer in the MR's diff or has no text diff; platform failures.
    pub async fn retry_file(
        &self,
        review_id: ReviewId,
        file_id: ReviewFileId,
    ) -> Result<usize, ServiceError> {
        self.redo_file(review_id, file_id, false).await
    }

    /// As [`ReviewEngine::retry_file`], for analyzers' results uploaded after the
    /// file was reviewed: the model is asked only when some of the uploaded
    /// findings sit on the file's changed lines (else nothing happens: `Ok(0)`).
    ///
    /// # Errors
    /// As [`ReviewEngine::retry_file`].
    pub async fn review_with_uploads(
        &self,
        review_id: ReviewId,
        file_id: ReviewFileId,
    ) -> Result<usize, ServiceError> {
        self.redo_file(review_id, file_id, true).await
    }

    async fn redo_file(
        &self,
        review_id: ReviewId,
        file_id: ReviewFileId,
        only_for_uploads: bool,
    ) -> Result<usize, ServiceError> {
        let review = self
            .reviews
            .get(review_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "review"))?;
        let (path, _, round) = self
            .reviews
            .file_ref(review_id, file_id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "review file"))?;
        let (project, platform) = self.projects.with_platform(review.project_id).await?;
        let config = self.projects.resolved_config(project.id).await?;
        let mr = platform
            .get_merge_request(&project.platform_ref(), review.mr_iid)
            .await?;
        let diff = platform
            .merge_request_diff(&project.platform_ref(), review.mr_iid)
            .await?;
        let file = diff
            .files
            .iter()
            .find(|f| f.new_path == path && f.diff.is_some())
            .ok_or_else(|| ServiceError::BadRequest {
                code: ErrorCode::FileNotInDiff,
                message: format!("{path} has no text diff in the merge request any more"),
            })?;
        let guidance = self.guidance(project.template_id, project.id).await?;
        let tools = crate::review::tools::RoundTools {
            found: self
                .uploaded_findings(&project.id, &review.head_commit_sha)
                .await,
            post: crate::review::tools::PostMode::default(),
        };
        if only_for_uploads {
            // The uploads are of the review's head: against a newer head their
            // lines would point at other code (the next round reads them anyway).
            if diff.refs.head_sha != review.head_commit_sha {
                return Ok(0);
            }
            let lines = crate::review::diff_lines::DiffLines::parse(
                file.diff.as_deref().unwrap_or_default(),
            );
            let relevant = tools.with_secrets_of(&file.new_path, "").iter().any(|f| {
                lines.place(f.line) == crate::review::diff_lines::Placement::Exact(f.line)
            });
            if !relevant {
                return Ok(0);
            }
        }
        // The configuration the project uses now, not the one of the first round.
        let ai = self.ai.target(config.ai_config_id).await?;
        let chain = self.ai.chain(&ai).await.map_err(|e| {
            ServiceError::Unavailable(format!("the AI configuration `{}`: {e}", ai.name))
        })?;
        let settings = self.context_settings(
            config.context_budget_tokens,
            None,
            &config.file_ignore_patterns,
        );
        let gathered = self
            .gather(
                (&project, platform.clone()),
                (&mr, &diff),
                std::slice::from_ref(&file.new_path),
                &settings,
            )
            .await;
        let result = self
            .review_file(
                review_id,
                file_id,
                file,
                (&gathered, &guidance, &tools),
                &chain,
            )
            .await;
        if !result.ok {
            return Err(ServiceError::Unavailable(format!(
                "the retry of {path} failed; see the file's error and the AI logs"
            )));
        }
        let seen = self.reviews.fingerprints(review_id).await?;
        let mut keys = HashSet::new();
        let fresh: Vec<PlacedComment> = result
            .comments
            .into_iter()
            .filter(|c| !seen.contains(&c.fingerprint) && keys.insert(c.fingerprint.clone()))
            .collect();
        let ids = self.reviews.add_comments(review_id, round, &fresh).await?;
        if config.send_to_platform
            && let Err(e) = self
                .post(
                    platform.as_ref(),
                    &project,
                    review.mr_iid,
                    &diff,
                    &fresh,
                    &ids,
                )
                .await
        {
            tracing::warn!(review.id = %review_id, error = %e, "review.retry_post_failed");
        }
        self.reviews
            .add_comment_count(review_id, i32::try_from(fresh.len()).unwrap_or(i32::MAX))
            .await?;
        // The gate said the round left files unreviewed: judge it again, with the
        // project's policy (a stricter `.reviewd.yml` is heard at the next round).
        if config.send_to_platform && config.gate.enabled {
            let review = self.reviews.get(review_id).await?;
            self.repost_verdict((platform.as_ref(), &project), &review, config.gate)
                .await;
        }
        tracing::info!(review.id = %review_id, file = %path, new_comments = fresh.len(), "review.file_retried");
        Ok(fresh.len())
    }
}
