use crate::api::{
    GlAwardEmoji, GlChanges, GlCompare, GlDiff, GlDiscussion, GlHook, GlMergeRequest, GlNote,
    GlProject, GlTokenInfo, GlTokenSelf, GlUser, MarkedThread,
};
use crate::client::GitlabPlatform;
use crate::endpoints::{CreateReviewHook, MergeRequestChanges, OAuthTokenInfo, ProjectUsers};
use crate::ids::{gl_id, parsed_id};
use crate::rest::{OffsetPaged, built, gl_error};
use crate::suggestion::comment_body;
use async_trait::async_trait;
use gitlab::api::common::SortOrder;
use gitlab::api::merge_requests::MergeRequestState;
use gitlab::api::personal_access_tokens::PersonalAccessTokenSelf;
use gitlab::api::projects::merge_requests as mr;
use gitlab::api::projects::merge_requests::discussions::{Position, TextPosition};
use gitlab::api::projects::{self as p, ProjectOrderBy};
use gitlab::api::{AsyncQuery, ignore, raw, users};
use reviewd_domain::model::conversation::CommentAuthor;
use reviewd_domain::model::diff::{
    CommentThread, DiffRefs, ExistingComment, FileDiff, InlineComment, MergeRequestDiff,
    ThreadReaction,
};
use reviewd_domain::model::gate::CommitGate;
use reviewd_domain::model::{
    MergeRequest, MrState, PlatformPage, PlatformProject, PlatformType, PlatformUser,
    PlatformWebhook, TokenIdentity,
};
use reviewd_domain::ports::{
    Archive, ArchiveLimits, HostingPlatform, PlatformError, ProjectRef, RepoTree,
};
use reviewd_domain::review::standing::Standing;

fn mr_state(state: MrState) -> Option<MergeRequestState> {
    match state {
        MrState::Opened => Some(MergeRequestState::Opened),
        MrState::Merged => Some(MergeRequestState::Merged),
        MrState::Closed => Some(MergeRequestState::Closed),
        // GitLab lists every state when none is asked for.
        MrState::All => None,
    }
}

impl GitlabPlatform {
    /// Scopes of the token: personal/project tokens report them at
    /// `/personal_access_tokens/self` (GitLab 15.5+), OAuth tokens at `/oauth/token/info`.
    async fn token_scopes(&self) -> Result<Option<Vec<String>>, PlatformError> {
        let own = PersonalAccessTokenSelf::builder().build().map_err(built)?;
        match own.query_async(&self.rest).await.map_err(gl_error) {
            Ok(GlTokenSelf { scopes }) => return Ok(Some(scopes)),
            // Older GitLab (404) or a non-personal token (400 for OAuth tokens).
            Err(
                PlatformError::NotFound(_)
                | PlatformError::Rejected(_)
                | PlatformError::Forbidden(_)
                | PlatformError::Unauthorized(_),
            ) => {}
            Err(other) => return Err(other),
        }
        let info: Result<GlTokenInfo, _> = OAuthTokenInfo.query_async(&self.rest).await;
        match info.map_err(gl_error) {
            Ok(info) => Ok(Some(info.scope)),
            // Not an OAuth token either, or an answer without readable scopes.
            Err(
                PlatformError::NotFound(_)
                | PlatformError::Unauthorized(_)
                | PlatformError::Forbidden(_)
                | PlatformError::InvalidResponse(_),
            ) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// The MR's files from `/diffs` (GitLab 15.7+), else the older `/changes`.
    async fn mr_files(&self, project: &str, iid: u64) -> Result<Vec<FileDiff>, PlatformError> {
        let diffs = mr::MergeRequestDiffs::builder()
            .project(project)
            .merge_request(iid)
            .build()
            .map_err(built)?;
        let files: Vec<GlDiff> = match self.rest.all(diffs).await {
            Ok(files) => files,
            Err(PlatformError::NotFound(_)) => {
                let changes = MergeRequestChanges {
                    project,
                    merge_request: iid,
                };
                let changes: GlChanges = changes.query_async(&self.rest).await.map_err(gl_error)?;
                changes.changes
            }
            Err(other) => return Err(other),
        };
        Ok(files.into_iter().map(FileDiff::from).collect())
    }

    /// `GET /user`: who the token acts as.
    async fn current_user(&self) -> Result<GlUser, PlatformError> {
        let me = users::CurrentUser::builder().build().map_err(built)?;
        me.query_async(&self.rest).await.map_err(gl_error)
    }

    /// Every discussion of a merge request, oldest first.
    async fn discussions(
        &self,
        project: &str,
        iid: u64,
    ) -> Result<Vec<GlDiscussion>, PlatformError> {
        let discussions = mr::discussions::MergeRequestDiscussions::builder()
            .project(project)
            .merge_request(iid)
            .build()
            .map_err(built)?;
        self.rest.all(discussions).await
    }
}

#[async_trait]
impl HostingPlatform for GitlabPlatform {
    fn platform_type(&self) -> PlatformType {
        PlatformType::Gitlab
    }

    async fn token_identity(&self) -> Result<TokenIdentity, PlatformError> {
        let user = self.current_user().await?;
        Ok(TokenIdentity {
            user_id: user.id.to_string(),
            username: user.username,
            name: user.name,
            scopes: self.token_scopes().await?,
        })
    }

    async fn list_projects(&self) -> Result<Vec<PlatformProject>, PlatformError> {
        let projects = p::Projects::builder()
            .membership(true)
            .order_by(ProjectOrderBy::Id)
            .sort(SortOrder::Ascending)
            .build()
            .map_err(built)?;
        let projects: Vec<GlProject> = self.rest.all(OffsetPaged(projects)).await?;
        Ok(projects.into_iter().map(PlatformProject::from).collect())
    }

    async fn get_project(&self, project: &ProjectRef) -> Result<PlatformProject, PlatformError> {
        let endpoint = p::Project::builder()
            .project(project.id.as_str())
            .build()
            .map_err(built)?;
        let found: GlProject = endpoint.query_async(&self.rest).await.map_err(gl_error)?;
        Ok(found.into())
    }

    async fn list_members(
        &self,
        project: &ProjectRef,
        search: Option<&str>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<PlatformUser>, PlatformError> {
        let mut members = p::members::AllProjectMembers::builder();
        members.project(project.id.as_str());
        if let Some(search) = search {
            members.query(search);
        }
        let members = members.build().map_err(built)?;
        let page = self
            .rest
            .one_page::<_, GlUser>(&members, page, per_page)
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
        let mut list = mr::MergeRequests::builder();
        list.project(project.id.as_str());
        if let Some(state) = mr_state(state) {
            list.state(state);
        }
        if let Some(search) = search {
            list.search(search);
        }
        let list = list.build().map_err(built)?;
        let page = self
            .rest
            .one_page::<_, GlMergeRequest>(&list, page, per_page)
            .await?;
        Ok(map_page(page, MergeRequest::from))
    }

    async fn get_merge_request(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<MergeRequest, PlatformError> {
        let endpoint = mr::MergeRequest::builder()
            .project(project.id.as_str())
            .merge_request(gl_id(iid, "merge request")?)
            .build()
            .map_err(built)?;
        let found: GlMergeRequest = endpoint.query_async(&self.rest).await.map_err(gl_error)?;
        Ok(found.into())
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
        let files = self
            .mr_files(&project.id, gl_id(iid, "merge request")?)
            .await?;
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
        let endpoint = p::repository::commits::CompareCommits::builder()
            .project(project.id.as_str())
            .from(from)
            .to(to)
            .straight(true)
            .build()
            .map_err(built)?;
        let compare: GlCompare = endpoint.query_async(&self.rest).await.map_err(gl_error)?;
        Ok(compare.diffs.into_iter().map(FileDiff::from).collect())
    }

    async fn read_file(
        &self,
        project: &ProjectRef,
        path: &str,
        sha: &str,
    ) -> Result<Option<Vec<u8>>, PlatformError> {
        // The crate puts the file path in one URL segment (its slashes encoded).
        let endpoint = p::repository::files::FileRaw::builder()
            .project(project.id.as_str())
            .file_path(path)
            .ref_(sha)
            .build()
            .map_err(built)?;
        match raw(endpoint)
            .query_async(&self.rest)
            .await
            .map_err(gl_error)
        {
            Ok(content) => Ok(Some(content)),
            Err(PlatformError::NotFound(_)) => Ok(None),
            Err(other) => Err(other),
        }
    }

    async fn repository_tree(
        &self,
        project: &ProjectRef,
        sha: &str,
    ) -> Result<RepoTree, PlatformError> {
        self.tree(project, sha).await
    }

    async fn repository_blob(
        &self,
        project: &ProjectRef,
        blob_id: &str,
    ) -> Result<Vec<u8>, PlatformError> {
        self.blob(project, blob_id).await
    }

    async fn repository_archive(
        &self,
        project: &ProjectRef,
        sha: &str,
        limits: ArchiveLimits,
    ) -> Result<Archive, PlatformError> {
        self.archive(project, sha, limits).await
    }

    async fn post_inline_comments(
        &self,
        project: &ProjectRef,
        iid: i64,
        refs: &DiffRefs,
        comments: &[InlineComment],
    ) -> Result<Vec<Option<String>>, PlatformError> {
        let iid = gl_id(iid, "merge request")?;
        let mut ids = Vec::with_capacity(comments.len());
        for comment in comments {
            let line = TextPosition::builder()
                .old_path(comment.old_path.as_deref().unwrap_or(&comment.file_path))
                .new_path(comment.file_path.as_str())
                .new_line(u64::from(comment.line))
                .build()
                .map_err(built)?;
            let position = Position::builder()
                .base_sha(refs.base_sha.as_str())
                .start_sha(refs.start_sha.as_str())
                .head_sha(refs.head_sha.as_str())
                .text_position(line)
                .build()
                .map_err(built)?;
            let discussion = mr::discussions::CreateMergeRequestDiscussion::builder()
                .project(project.id.as_str())
                .merge_request(iid)
                .body(comment_body(comment))
                .position(position)
                .build()
                .map_err(built)?;
            let opened: GlDiscussion =
                discussion.query_async(&self.rest).await.map_err(gl_error)?;
            ids.push(Some(opened.id));
        }
        Ok(ids)
    }

    async fn list_comments(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<Vec<ExistingComment>, PlatformError> {
        let discussions = self
            .discussions(&project.id, gl_id(iid, "merge request")?)
            .await?;
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
        let iid = gl_id(iid, "merge request")?;
        let discussions = self.discussions(&project.id, iid).await?;
        let marked: Vec<MarkedThread> = discussions
            .into_iter()
            .filter_map(GlDiscussion::into_review_thread)
            .collect();
        if marked.is_empty() {
            return Ok(Vec::new());
        }
        // Anyone who can comment can copy a marker into a thread of their own:
        // only the threads the token's user opened are reviewd's.
        let own = self.current_user().await?.username;
        let mut threads = Vec::new();
        for MarkedThread {
            note_id,
            author,
            mut thread,
        } in marked
        {
            if !author.is_some_and(|a| a.eq_ignore_ascii_case(&own)) {
                continue;
            }
            let awards = mr::notes::awards::MergeRequestNoteAwards::builder()
                .project(project.id.as_str())
                .merge_request(iid)
                .note(gl_id(note_id, "note")?)
                .build()
                .map_err(built)?;
            let awards: Vec<GlAwardEmoji> = match self.rest.all(awards).await {
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
        let endpoint = mr::notes::CreateMergeRequestNote::builder()
            .project(project.id.as_str())
            .merge_request(gl_id(iid, "merge request")?)
            .body(body)
            .build()
            .map_err(built)?;
        let note: GlNote = endpoint.query_async(&self.rest).await.map_err(gl_error)?;
        Ok(note.id.to_string())
    }

    async fn edit_comment(
        &self,
        project: &ProjectRef,
        iid: i64,
        comment_id: &str,
        body: &str,
    ) -> Result<(), PlatformError> {
        let endpoint = mr::notes::EditMergeRequestNote::builder()
            .project(project.id.as_str())
            .merge_request(gl_id(iid, "merge request")?)
            .note(parsed_id(comment_id, "note")?)
            .body(body)
            .build()
            .map_err(built)?;
        ignore(endpoint)
            .query_async(&self.rest)
            .await
            .map_err(gl_error)
    }

    async fn standing(
        &self,
        project: &ProjectRef,
        author: &CommentAuthor,
    ) -> Result<Standing, PlatformError> {
        self.member_standing(project, author).await
    }

    async fn reply_in_thread(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
        body: &str,
    ) -> Result<String, PlatformError> {
        self.discussion_reply(project, iid, thread_id, body).await
    }

    async fn resolve_thread(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
    ) -> Result<(), PlatformError> {
        self.resolve_discussion(project, iid, thread_id).await
    }

    async fn set_description(
        &self,
        project: &ProjectRef,
        iid: i64,
        description: &str,
    ) -> Result<(), PlatformError> {
        self.edit_description(project, iid, description).await
    }

    async fn set_commit_gate(
        &self,
        project: &ProjectRef,
        sha: &str,
        gate: &CommitGate,
    ) -> Result<(), PlatformError> {
        self.commit_status(project, sha, gate).await
    }

    async fn assign(
        &self,
        project: &ProjectRef,
        iid: i64,
        assignee_ids: &[String],
        reviewer_ids: &[String],
    ) -> Result<(), PlatformError> {
        self.edit_assignment(project, iid, assignee_ids, reviewer_ids)
            .await
    }

    async fn list_webhooks(
        &self,
        project: &ProjectRef,
    ) -> Result<Vec<PlatformWebhook>, PlatformError> {
        let hooks = p::hooks::Hooks::builder()
            .project(project.id.as_str())
            .build()
            .map_err(built)?;
        let hooks: Vec<GlHook> = self.rest.all(hooks).await?;
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
        let endpoint = CreateReviewHook {
            project: &project.id,
            url,
            token: secret,
        };
        let hook: GlHook = endpoint.query_async(&self.rest).await.map_err(gl_error)?;
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
        let endpoint = p::hooks::DeleteHook::builder()
            .project(project.id.as_str())
            .hook_id(parsed_id(hook_id, "hook")?)
            .build()
            .map_err(built)?;
        ignore(endpoint)
            .query_async(&self.rest)
            .await
            .map_err(gl_error)
    }

    async fn search_users(
        &self,
        search: Option<&str>,
        project: Option<&ProjectRef>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<PlatformUser>, PlatformError> {
        let page = if let Some(project) = project {
            let users = ProjectUsers {
                project: &project.id,
                search,
            };
            self.rest
                .one_page::<_, GlUser>(&users, page, per_page)
                .await?
        } else {
            let mut users = users::Users::builder();
            if let Some(search) = search {
                users.search(search);
            }
            let users = users.build().map_err(built)?;
            self.rest
                .one_page::<_, GlUser>(&users, page, per_page)
                .await?
        };
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
