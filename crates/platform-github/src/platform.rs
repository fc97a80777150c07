use crate::api::{GhComment, GhCompare, GhContent, GhFile, GhHook, GhPull, GhRepo, GhUser};
use crate::client::{GithubPlatform, read_body};
use crate::suggestion::review_comment;
use async_trait::async_trait;
use reviewd_domain::model::conversation::CommentAuthor;
use reviewd_domain::model::diff::{
    CommentThread, DiffRefs, ExistingComment, FileDiff, InlineComment, MergeRequestDiff,
};
use reviewd_domain::model::gate::CommitGate;
use reviewd_domain::model::{
    MergeRequest, MrState, PlatformPage, PlatformProject, PlatformType, PlatformUser,
    PlatformWebhook, RunnerToken, TokenIdentity,
};
use reviewd_domain::ports::{
    Archive, ArchiveLimits, HostingPlatform, PlatformError, ProjectRef, RepoTree,
};
use reviewd_domain::review::standing::Standing;
use serde_json::json;

/// `/repos/{owner}/{name}` of a project; numeric ids go through `/repositories/{id}`.
fn repo(project: &ProjectRef) -> String {
    if project.full_path.contains('/') {
        format!("/repos/{}", project.full_path)
    } else {
        format!("/repositories/{}", project.id)
    }
}

/// A repository path as URL segments: each encoded, the slashes kept. The form
/// encoder writes a space as `+`, which a path would read as a plus (a plus of the
/// name is `%2B` by then).
fn encode_path(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            url::form_urlencoded::byte_serialize(segment.as_bytes())
                .collect::<String>()
                .replace('+', "%20")
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[async_trait]
impl HostingPlatform for GithubPlatform {
    fn platform_type(&self) -> PlatformType {
        PlatformType::Github
    }

    async fn token_identity(&self) -> Result<TokenIdentity, PlatformError> {
        // Installation tokens act for no user (`/user` answers 403): an App is
        // itself.
        if self.app_installation()?.is_some() {
            return self.app_identity().await;
        }
        let response = self.get_response("/user").await?;
        // Classic tokens list their scopes in this header; fine-grained tokens and
        // app tokens send none.
        let scopes = response
            .headers()
            .get("x-oauth-scopes")
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            });
        let body = read_body(response).await?;
        let user: GhUser = serde_json::from_slice(&body)
            .map_err(|e| PlatformError::InvalidResponse(format!("GET /user: {e}")))?;
        Ok(TokenIdentity {
            user_id: user.id.to_string(),
            username: user.login,
            name: user.name,
            scopes,
        })
    }

    async fn list_projects(&self) -> Result<Vec<PlatformProject>, PlatformError> {
        if self.app_installation()?.is_some() {
            return self.app_projects().await;
        }
        let query = [
            (
                "affiliation",
                "owner,collaborator,organization_member".to_owned(),
            ),
            ("sort", "full_name".to_owned()),
        ];
        let repos: Vec<GhRepo> = self.get_all("/user/repos", &query).await?;
        Ok(repos.into_iter().map(PlatformProject::from).collect())
    }

    async fn get_project(&self, project: &ProjectRef) -> Result<PlatformProject, PlatformError> {
        let repo: GhRepo = self.get_json(&repo(project), &[]).await?;
        Ok(repo.into())
    }

    async fn list_members(
        &self,
        project: &ProjectRef,
        search: Option<&str>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<PlatformUser>, PlatformError> {
        // GitHub has no server-side search of collaborators: filter the page.
        let page = self
            .get_page::<GhUser>(
                &format!("{}/collaborators", repo(project)),
                &[],
                page,
                per_page,
            )
            .await?;
        let needle = search.map(str::to_lowercase);
        let items = page
            .items
            .into_iter()
            .map(PlatformUser::from)
            .filter(|u| {
                needle.as_ref().is_none_or(|n| {
                    u.username.to_lowercase().contains(n) || u.name.to_lowercase().contains(n)
                })
            })
            .collect();
        Ok(PlatformPage {
            items,
            ..page_meta(&page.page, page.per_page, page.has_next)
        })
    }

    async fn list_merge_requests(
        &self,
        project: &ProjectRef,
        state: MrState,
        search: Option<&str>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<MergeRequest>, PlatformError> {
        let api_state = match state {
            MrState::Opened => "open",
            MrState::Merged | MrState::Closed => "closed",
            MrState::All => "all",
        };
        let query = [
            ("state", api_state.to_owned()),
            ("sort", "updated".to_owned()),
            ("direction", "desc".to_owned()),
        ];
        let page = self
            .get_page::<GhPull>(&format!("{}/pulls", repo(project)), &query, page, per_page)
            .await?;
        let needle = search.map(str::to_lowercase);
        let items = page
            .items
            .into_iter()
            .map(MergeRequest::from)
            .filter(|mr| match state {
                MrState::Merged => mr.state == "merged",
                MrState::Closed => mr.state == "closed",
                _ => true,
            })
            .filter(|mr| {
                needle
                    .as_ref()
                    .is_none_or(|n| mr.title.to_lowercase().contains(n))
            })
            .collect();
        Ok(PlatformPage {
            items,
            ..page_meta(&page.page, page.per_page, page.has_next)
        })
    }

    async fn get_merge_request(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<MergeRequest, PlatformError> {
        let pr: GhPull = self
            .get_json(&format!("{}/pulls/{iid}", repo(project)), &[])
            .await?;
        Ok(pr.into())
    }

    async fn merge_request_diff(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<MergeRequestDiff, PlatformError> {
        let pr = self.get_merge_request(project, iid).await?;
        let (Some(base_sha), Some(head_sha)) = (pr.base_sha, pr.head_sha) else {
            return Err(PlatformError::InvalidResponse(format!(
                "pull request #{iid} has no base or head"
            )));
        };
        let files: Vec<GhFile> = self
            .get_all(&format!("{}/pulls/{iid}/files", repo(project)), &[])
            .await?;
        Ok(MergeRequestDiff {
            refs: DiffRefs {
                start_sha: base_sha.clone(),
                base_sha,
                head_sha,
            },
            files: files.into_iter().map(FileDiff::from).collect(),
        })
    }

    async fn compare(
        &self,
        project: &ProjectRef,
        from: &str,
        to: &str,
    ) -> Result<Vec<FileDiff>, PlatformError> {
        let compare: GhCompare = self
            .get_json(&format!("{}/compare/{from}...{to}", repo(project)), &[])
            .await?;
        Ok(compare.files.into_iter().map(FileDiff::from).collect())
    }

    async fn read_file(
        &self,
        project: &ProjectRef,
        path: &str,
        sha: &str,
    ) -> Result<Option<Vec<u8>>, PlatformError> {
        let route = format!("{}/contents/{}", repo(project), encode_path(path));
        let content: GhContent = match self.get_json(&route, &[("ref", sha.to_owned())]).await {
            Ok(content) => content,
            Err(PlatformError::NotFound(_)) => return Ok(None),
            Err(other) => return Err(other),
        };
        content.decoded()
    }

    async fn repository_tree(
        &self,
        project: &ProjectRef,
        sha: &str,
    ) -> Result<RepoTree, PlatformError> {
        self.tree(&repo(project), sha).await
    }

    async fn repository_blob(
        &self,
        project: &ProjectRef,
        blob_id: &str,
    ) -> Result<Vec<u8>, PlatformError> {
        self.blob(&repo(project), blob_id).await
    }

    async fn repository_archive(
        &self,
        project: &ProjectRef,
        sha: &str,
        limits: ArchiveLimits,
    ) -> Result<Archive, PlatformError> {
        self.archive(&repo(project), sha, limits).await
    }

    async fn post_inline_comments(
        &self,
        project: &ProjectRef,
        iid: i64,
        refs: &DiffRefs,
        comments: &[InlineComment],
    ) -> Result<Vec<Option<String>>, PlatformError> {
        if comments.is_empty() {
            return Ok(Vec::new());
        }
        // GitHub's description requires a body with `COMMENT`: a line saying what
        // the review holds (the summary is its own comment, edited in place).
        let short = refs.head_sha.get(..12).unwrap_or(&refs.head_sha);
        let body = json!({
            "commit_id": refs.head_sha,
            "event": "COMMENT",
            "body": format!("reviewd: {} comment(s) on `{short}`.", comments.len()),
            "comments": comments.iter().map(review_comment).collect::<Vec<_>>(),
        });
        self.post_unread(&format!("{}/pulls/{iid}/reviews", repo(project)), &body)
            .await?;
        // One review holds every comment; GitHub returns no per-comment ids here.
        Ok(vec![None; comments.len()])
    }

    async fn list_comments(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<Vec<ExistingComment>, PlatformError> {
        // Review comments first: that route fails for a number that is no pull
        // request, where the would list an issue's comments.
        let mut comments: Vec<GhComment> = self
            .get_all(&format!("{}/pulls/{iid}/comments", repo(project)), &[])
            .await?;
        let general: Vec<GhComment> = self
            .get_all(&format!("{}/issues/{iid}/comments", repo(project)), &[])
            .await?;
        comments.extend(general);
        // Two lists, each oldest first: merged by time, ids settling ties.
        comments.sort_by_key(|c| (c.created_at, c.id));
        Ok(comments
            .into_iter()
            .map(|c| ExistingComment {
                id: c.id.to_string(),
                thread_id: None,
                body: c.body.unwrap_or_default(),
            })
            .collect())
    }

    async fn comment_threads(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<Vec<CommentThread>, PlatformError> {
        self.threads(project, &repo(project), iid).await
    }

    async fn runner_token(
        &self,
        project: &ProjectRef,
    ) -> Result<Option<RunnerToken>, PlatformError> {
        // A token config gives runners its own token, as before.
        if self.app_installation()?.is_none() {
            return Ok(None);
        }
        self.mint_runner_token(&repo(project), &project.id)
            .await
            .map(Some)
    }

    async fn post_comment(
        &self,
        project: &ProjectRef,
        iid: i64,
        body: &str,
    ) -> Result<String, PlatformError> {
        let comment: GhComment = self
            .post_json(
                &format!("{}/issues/{iid}/comments", repo(project)),
                &json!({ "body": body }),
            )
            .await?;
        Ok(comment.id.to_string())
    }

    async fn standing(
        &self,
        project: &ProjectRef,
        author: &CommentAuthor,
    ) -> Result<Standing, PlatformError> {
        self.permission_of(&repo(project), author).await
    }

    async fn reply_in_thread(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
        body: &str,
    ) -> Result<String, PlatformError> {
        self.reply_to(&repo(project), iid, thread_id, body).await
    }

    async fn resolve_thread(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
    ) -> Result<(), PlatformError> {
        self.resolve(project, &repo(project), iid, thread_id).await
    }

    async fn set_commit_gate(
        &self,
        project: &ProjectRef,
        sha: &str,
        gate: &CommitGate,
    ) -> Result<(), PlatformError> {
        self.commit_gate(&repo(project), sha, gate).await
    }

    async fn set_description(
        &self,
        project: &ProjectRef,
        iid: i64,
        description: &str,
    ) -> Result<(), PlatformError> {
        self.patch_unread(
            &format!("{}/pulls/{iid}", repo(project)),
            &json!({ "body": description }),
        )
        .await
    }

    async fn edit_comment(
        &self,
        project: &ProjectRef,
        _iid: i64,
        comment_id: &str,
        body: &str,
    ) -> Result<(), PlatformError> {
        self.patch_unread(
            &format!("{}/issues/comments/{comment_id}", repo(project)),
            &json!({ "body": body }),
        )
        .await?;
        Ok(())
    }

    async fn assign(
        &self,
        project: &ProjectRef,
        iid: i64,
        assignee_ids: &[String],
        reviewer_ids: &[String],
    ) -> Result<(), PlatformError> {
        // GitHub addresses people by login, which is what hostB projects store.
        if !assignee_ids.is_empty() {
            self.post_unread(
                &format!("{}/issues/{iid}/assignees", repo(project)),
                &json!({ "assignees": assignee_ids }),
            )
            .await?;
        }
        if !reviewer_ids.is_empty() {
            self.post_unread(
                &format!("{}/pulls/{iid}/requested_reviewers", repo(project)),
                &json!({ "reviewers": reviewer_ids }),
            )
            .await?;
        }
        Ok(())
    }

    async fn list_webhooks(
        &self,
        project: &ProjectRef,
    ) -> Result<Vec<PlatformWebhook>, PlatformError> {
        self.repository_hooks_allowed()?;
        let hooks: Vec<GhHook> = self
            .get_all(&format!("{}/hooks", repo(project)), &[])
            .await?;
        Ok(hooks
            .into_iter()
            .map(|h| PlatformWebhook {
                id: h.id.to_string(),
                url: h.config.url.unwrap_or_default(),
            })
            .collect())
    }

    async fn create_webhook(
        &self,
        project: &ProjectRef,
        url: &str,
        secret: Option<&str>,
    ) -> Result<PlatformWebhook, PlatformError> {
        self.repository_hooks_allowed()?;
        let mut config = json!({ "url": url, "content_type": "json", "insecure_ssl": "0" });
        if let Some(secret) = secret {
            config["secret"] = json!(secret);
        }
        let body = json!({
            "name": "web",
            "active": true,
            // Review threads for their resolution, feedback on reviewd's comments.
            "events": [
                "pull_request",
                "issue_comment",
                "pull_request_review_comment",
                "pull_request_review_thread",
            ],
            "config": config,
        });
        let hook: GhHook = self
            .post_json(&format!("{}/hooks", repo(project)), &body)
            .await?;
        Ok(PlatformWebhook {
            id: hook.id.to_string(),
            url: hook.config.url.unwrap_or_else(|| url.to_owned()),
        })
    }

    async fn delete_webhook(
        &self,
        project: &ProjectRef,
        hook_id: &str,
    ) -> Result<(), PlatformError> {
        self.repository_hooks_allowed()?;
        self.delete(&format!("{}/hooks/{hook_id}", repo(project)))
            .await
    }

    async fn search_users(
        &self,
        _search: Option<&str>,
        _project: Option<&ProjectRef>,
        _page: u32,
        _per_page: u32,
    ) -> Result<PlatformPage<PlatformUser>, PlatformError> {
        Err(PlatformError::Unsupported("hostB"))
    }
}

fn page_meta<T>(page: &u32, per_page: u32, has_next: bool) -> PlatformPage<T> {
    PlatformPage {
        items: Vec::new(),
        page: *page,
        per_page,
        total: None,
        has_next,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_paths_are_encoded_segment_by_segment() {
        assert_eq!(
            encode_path("docs/a b+c/ü?.md"),
            "docs/a%20b%2Bc/%C3%BC%3F.md"
        );
    }
}
