use crate::api::{
    GlAwardEmoji, GlChanges, GlCompare, GlDiff, GlDiscussion, GlHook, GlMergeRequest, GlNote,
    GlProject, GlTokenInfo, GlTokenSelf, GlUser,
};
use crate::client::{GitlabPlatform, project_segment};
use crate::suggestion::comment_body;
use async_trait::async_trait;
use reviewd_domain::model::diff::{
    CommentThread, DiffRefs, ExistingComment, FileDiff, InlineComment, MergeRequestDiff,
    ThreadReaction,
};
use reviewd_domain::model::{
    MergeRequest, MrState, PlatformPage, PlatformProject, PlatformType, PlatformUser,
    PlatformWebhook, TokenIdentity,
};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use reviewd_http::platform_error;
use serde_json::json;

fn mr_state(state: MrState) -> &'static str {
    match state {
        MrState::Opened => "opened",
        MrState::Merged => "merged",
        MrState::Closed => "closed",
        MrState::All => "all",
    }
}

fn user_ids(ids: &[String]) -> Result<Vec<i64>, PlatformError> {
    ids.iter()
        .map(|id| {
            id.parse::<i64>()
                .map_err(|_| PlatformError::Rejected(format!("`{id}` is not a GitLab user id")))
        })
        .collect()
}

impl GitlabPlatform {
    fn project_path(project: &ProjectRef, rest: &str) -> String {
        format!("/projects/{}{rest}", project_segment(&project.id))
    }

    /// Scopes of the token: personal/project tokens report them at
    /// `/personal_access_tokens/self` (GitLab 15.5+), OAuth tokens at `/oauth/token/info`.
    async fn token_scopes(&self) -> Result<Option<Vec<String>>, PlatformError> {
        match self
            .get_json::<GlTokenSelf>("/personal_access_tokens/self", &[])
            .await
        {
            Ok(token) => return Ok(Some(token.scopes)),
            // Older GitLab (404) or a non-personal token (400 for OAuth tokens).
            Err(
                PlatformError::NotFound(_)
                | PlatformError::Rejected(_)
                | PlatformError::Forbidden(_)
                | PlatformError::Unauthorized(_),
            ) => {}
            Err(other) => return Err(other),
        }
        let info_url = self.instance_url("/oauth/token/info");
        match self.send(|c| c.get(&info_url)).await {
            Ok(response) => Ok(response.json::<GlTokenInfo>().ok().map(|i| i.scope)),
            Err(
                PlatformError::NotFound(_)
                | PlatformError::Unauthorized(_)
                | PlatformError::Forbidden(_),
            ) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// The MR's files from `/diffs` (GitLab 15.7+), else the older `/changes`.
    async fn mr_files(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<Vec<FileDiff>, PlatformError> {
        let diffs_path = Self::project_path(project, &format!("/merge_requests/{iid}/diffs"));
        let files: Vec<GlDiff> = match self.get_all(&diffs_path, &[]).await {
            Ok(files) => files,
            Err(PlatformError::NotFound(_)) => {
                let changes_path =
                    Self::project_path(project, &format!("/merge_requests/{iid}/changes"));
                self.get_json::<GlChanges>(&changes_path, &[])
                    .await?
                    .changes
            }
            Err(other) => return Err(other),
        };
        Ok(files.into_iter().map(FileDiff::from).collect())
    }
}

#[async_trait]
impl HostingPlatform for GitlabPlatform {
    fn platform_type(&self) -> PlatformType {
        PlatformType::HostA
    }

    async fn token_identity(&self) -> Result<TokenIdentity, PlatformError> {
        let user: GlUser = self.get_json("/user", &[]).await?;
        Ok(TokenIdentity {
            user_id: user.id.to_string(),
            username: user.username,
            name: user.name,
            scopes: self.token_scopes().await?,
        })
    }

    async fn list_projects(&self) -> Result<Vec<PlatformProject>, PlatformError> {
        let query = [
            ("membership", "true".to_owned()),
            ("order_by", "id".to_owned()),
            ("sort", "asc".to_owned()),
        ];
        let projects: Vec<GlProject> = self.get_all("/projects", &query).await?;
        Ok(projects.into_iter().map(PlatformProject::from).collect())
    }

    async fn get_project(&self, project: &ProjectRef) -> Result<PlatformProject, PlatformError> {
        let p: GlProject = self.get_json(&Self::project_path(project, ""), &[]).await?;
        Ok(p.into())
    }

    async fn list_members(
        &self,
        project: &ProjectRef,
        search: Option<&str>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<PlatformUser>, PlatformError> {
        let query: Vec<(&str, String)> = search
            .map(|s| ("query", s.to_owned()))
            .into_iter()
            .collect();
        let page = self
            .get_page::<GlUser>(
                &Self::project_path(project, "/members/all"),
                &query,
                page,
                per_page,
            )
            .await?;
        Ok(map_page(page, PlatformUser::from))
    }

    async fn list_merge_requests(
        &self,
        project: &ProjectRef,
        state: MrState,
        search: Option<&str>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<MergeRequest>, PlatformError> {
        let mut query = vec![("state", mr_state(state).to_owned())];
        if let Some(s) = search {
            query.push(("search", s.to_owned()));
        }
        let page = self
            .get_page::<GlMergeRequest>(
                &Self::project_path(project, "/merge_requests"),
                &query,
                page,
                per_page,
            )
            .await?;
        Ok(map_page(page, MergeRequest::from))
    }

    async fn get_merge_request(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<MergeRequest, PlatformError> {
        let mr: GlMergeRequest = self
            .get_json(
                &Self::project_path(project, &format!("/merge_requests/{iid}")),
                &[],
            )
            .await?;
        Ok(mr.into())
    }

    async fn merge_request_diff(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<MergeRequestDiff, PlatformError> {
        let mr = self.get_merge_request(project, iid).await?;
        let (Some(base_sha), Some(start_sha), Some(head_sha)) =
            (mr.base_sha, mr.start_sha, mr.head_sha)
        else {
            return Err(PlatformError::InvalidResponse(format!(
                "merge request !{iid} has no diff_refs yet"
            )));
        };
        let files = self.mr_files(project, iid).await?;
        Ok(MergeRequestDiff {
            refs: DiffRefs {
                base_sha,
                start_sha,
                head_sha,
            },
            files,
        })
    }

    async fn compare(
        &self,
        project: &ProjectRef,
        from: &str,
        to: &str,
    ) -> Result<Vec<FileDiff>, PlatformError> {
        let query = [
            ("from", from.to_owned()),
            ("to", to.to_owned()),
            ("straight", "true".to_owned()),
        ];
        let compare: GlCompare = self
            .get_json(&Self::project_path(project, "/repository/compare"), &query)
            .await?;
        Ok(compare.diffs.into_iter().map(FileDiff::from).collect())
    }

    async fn read_file(
        &self,
        project: &ProjectRef,
        path: &str,
        sha: &str,
    ) -> Result<Option<Vec<u8>>, PlatformError> {
        // The file path is one URL segment: its slashes are encoded.
        let url = self.url(&Self::project_path(
            project,
            &format!("/repository/files/{}/raw", project_segment(path)),
        ));
        match self.send(|c| c.get(&url).query(&[("ref", sha)])).await {
            Ok(response) => Ok(Some(response.body.to_vec())),
            Err(PlatformError::NotFound(_)) => Ok(None),
            Err(other) => Err(other),
        }
    }

    async fn post_inline_comments(
        &self,
        project: &ProjectRef,
        iid: i64,
        refs: &DiffRefs,
        comments: &[InlineComment],
    ) -> Result<Vec<Option<String>>, PlatformError> {
        let url = self.url(&Self::project_path(
            project,
            &format!("/merge_requests/{iid}/discussions"),
        ));
        let mut ids = Vec::with_capacity(comments.len());
        for comment in comments {
            let body = json!({
                "body": comment_body(comment),
                "position": {
                    "position_type": "text",
                    "base_sha": refs.base_sha,
                    "start_sha": refs.start_sha,
                    "head_sha": refs.head_sha,
                    "old_path": comment.old_path.as_deref().unwrap_or(&comment.file_path),
                    "new_path": comment.file_path,
                    "new_line": comment.line,
                },
            });
            let response = self.send(|c| c.post(&url).json(&body)).await?;
            let discussion: GlDiscussion = response.json().map_err(platform_error)?;
            ids.push(Some(discussion.id));
        }
        Ok(ids)
    }

    async fn list_comments(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<Vec<ExistingComment>, PlatformError> {
        let path = Self::project_path(project, &format!("/merge_requests/{iid}/discussions"));
        let discussions: Vec<GlDiscussion> = self.get_all(&path, &[]).await?;
        let mut notes: Vec<(i64, ExistingComment)> = discussions
            .into_iter()
            .flat_map(GlDiscussion::into_comments)
            .collect();
        // Discussions come in the order they were opened, so a late reply in an early
        // thread would come too soon; note ids grow with time.
        notes.sort_by_key(|(id, _)| *id);
        Ok(notes.into_iter().map(|(_, comment)| comment).collect())
    }

    async fn comment_threads(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<Vec<CommentThread>, PlatformError> {
        let path = Self::project_path(project, &format!("/merge_requests/{iid}/discussions"));
        let discussions: Vec<GlDiscussion> = self.get_all(&path, &[]).await?;
        let mut threads = Vec::new();
        for (note_id, mut thread) in discussions
            .into_iter()
            .filter_map(GlDiscussion::into_review_thread)
        {
            let awards_path = Self::project_path(
                project,
                &format!("/merge_requests/{iid}/notes/{note_id}/award_emoji"),
            );
            let awards: Vec<GlAwardEmoji> = match self.get_all(&awards_path, &[]).await {
                Ok(awards) => awards,
                // The note was deleted since the discussions were read: no thread to judge.
                Err(PlatformError::NotFound(_)) => continue,
                Err(other) => return Err(other),
            };
            thread.reactions = awards
                .into_iter()
                .map(|award| ThreadReaction {
                    name: award.name,
                    username: award.user.username,
                })
                .collect();
            threads.push(thread);
        }
        Ok(threads)
    }

    async fn post_comment(
        &self,
        project: &ProjectRef,
        iid: i64,
        body: &str,
    ) -> Result<String, PlatformError> {
        let url = self.url(&Self::project_path(
            project,
            &format!("/merge_requests/{iid}/notes"),
        ));
        let response = self
            .send(|c| c.post(&url).json(&json!({ "body": body })))
            .await?;
        Ok(response
            .json::<GlNote>()
            .map_err(platform_error)?
            .id
            .to_string())
    }

    async fn edit_comment(
        &self,
        project: &ProjectRef,
        iid: i64,
        comment_id: &str,
        body: &str,
    ) -> Result<(), PlatformError> {
        let url = self.url(&Self::project_path(
            project,
            &format!("/merge_requests/{iid}/notes/{comment_id}"),
        ));
        self.send(|c| c.put(&url).json(&json!({ "body": body })))
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
        let mut body = serde_json::Map::new();
        if !assignee_ids.is_empty() {
            body.insert("assignee_ids".into(), json!(user_ids(assignee_ids)?));
        }
        if !reviewer_ids.is_empty() {
            body.insert("reviewer_ids".into(), json!(user_ids(reviewer_ids)?));
        }
        if body.is_empty() {
            return Ok(());
        }
        let url = self.url(&Self::project_path(
            project,
            &format!("/merge_requests/{iid}"),
        ));
        self.send(|c| c.put(&url).json(&body)).await?;
        Ok(())
    }

    async fn list_webhooks(
        &self,
        project: &ProjectRef,
    ) -> Result<Vec<PlatformWebhook>, PlatformError> {
        let hooks: Vec<GlHook> = self
            .get_all(&Self::project_path(project, "/hooks"), &[])
            .await?;
        Ok(hooks
            .into_iter()
            .map(|h| PlatformWebhook {
                id: h.id.to_string(),
                url: h.url,
            })
            .collect())
    }

    async fn create_webhook(
        &self,
        project: &ProjectRef,
        url: &str,
        secret: Option<&str>,
    ) -> Result<PlatformWebhook, PlatformError> {
        let mut body = json!({
            "url": url,
            "merge_requests_events": true,
            "note_events": true,
            // Award emoji on reviewd's comments are feedback (GitLab 16.2+; older
            // instances ignore the field).
            "emoji_events": true,
            "push_events": false,
            "enable_ssl_verification": url.starts_with("https://"),
        });
        if let Some(secret) = secret {
            body["token"] = json!(secret);
        }
        let endpoint = self.url(&Self::project_path(project, "/hooks"));
        let hook: GlHook = self
            .send(|c| c.post(&endpoint).json(&body))
            .await?
            .json()
            .map_err(platform_error)?;
        Ok(PlatformWebhook {
            id: hook.id.to_string(),
            url: hook.url,
        })
    }

    async fn delete_webhook(
        &self,
        project: &ProjectRef,
        hook_id: &str,
    ) -> Result<(), PlatformError> {
        let url = self.url(&Self::project_path(project, &format!("/hooks/{hook_id}")));
        self.send(|c| c.delete(&url)).await?;
        Ok(())
    }

    async fn search_users(
        &self,
        search: Option<&str>,
        project: Option<&ProjectRef>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<PlatformUser>, PlatformError> {
        let path = project.map_or_else(|| "/users".to_owned(), |p| Self::project_path(p, "/users"));
        let query: Vec<(&str, String)> = search
            .map(|s| ("search", s.to_owned()))
            .into_iter()
            .collect();
        let page = self
            .get_page::<GlUser>(&path, &query, page, per_page)
            .await?;
        Ok(map_page(page, PlatformUser::from))
    }
}

fn map_page<T, U>(page: PlatformPage<T>, f: impl FnMut(T) -> U) -> PlatformPage<U> {
    PlatformPage {
        items: page.items.into_iter().map(f).collect(),
        page: page.page,
        per_page: page.per_page,
        total: page.total,
        has_next: page.has_next,
    }
}
