//! A source-hosting platform (`hostA` GitLab-compatible, `hostB` GitHub-compatible),
//! as seen through one access token.

use crate::model::conversation::CommentAuthor;
use crate::model::diff::{
    CommentThread, DiffRefs, ExistingComment, FileDiff, InlineComment, MergeRequestDiff,
};
use crate::model::gate::CommitGate;
use crate::model::{
    MergeRequest, MrState, OAuthTokens, PlatformConnection, PlatformPage, PlatformProject,
    PlatformType, PlatformUser, PlatformWebhook, RunnerToken, TokenIdentity,
};
use crate::ports::code_source::{Archive, ArchiveLimits, RepoTree};
use crate::ports::platform_error::PlatformError;
use crate::review::standing::Standing;
use async_trait::async_trait;
use std::sync::Arc;

pub use crate::model::project::ProjectRef;

/// One platform instance through one token. Every method is bounded by a timeout
/// and retried by the adapter where safe; errors are reported as [`PlatformError`].
#[async_trait]
pub trait HostingPlatform: Send + Sync {
    fn platform_type(&self) -> PlatformType;

    /// Who the token belongs to and, when the platform says, its scopes.
    ///
    /// # Errors
    /// `Unauthorized` for a bad token; `Unavailable`/`RateLimited` as usual.
    async fn token_identity(&self) -> Result<TokenIdentity, PlatformError>;

    /// Every project the token can see, all pages read.
    ///
    /// # Errors
    /// As [`HostingPlatform::token_identity`].
    async fn list_projects(&self) -> Result<Vec<PlatformProject>, PlatformError>;

    /// # Errors
    /// `NotFound` for an unknown or invisible project.
    async fn get_project(&self, project: &ProjectRef) -> Result<PlatformProject, PlatformError>;

    /// # Errors
    /// `NotFound` for an unknown project.
    async fn list_members(
        &self,
        project: &ProjectRef,
        search: Option<&str>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<PlatformUser>, PlatformError>;

    /// # Errors
    /// `NotFound` for an unknown project.
    async fn list_merge_requests(
        &self,
        project: &ProjectRef,
        state: MrState,
        search: Option<&str>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<MergeRequest>, PlatformError>;

    /// # Errors
    /// `NotFound` for an unknown project or MR.
    async fn get_merge_request(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<MergeRequest, PlatformError>;

    /// The MR's changed files and the SHAs they are taken between.
    ///
    /// # Errors
    /// `NotFound` for an unknown project or MR.
    async fn merge_request_diff(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<MergeRequestDiff, PlatformError>;

    /// Files changed between two commits.
    ///
    /// # Errors
    /// `NotFound` for an unknown project or commit.
    async fn compare(
        &self,
        project: &ProjectRef,
        from: &str,
        to: &str,
    ) -> Result<Vec<FileDiff>, PlatformError>;

    /// The raw content of the file at `path` in the repository at commit `sha`
    /// (how the engine reads `.reviewd.yml` at an MR's head).
    ///
    /// # Errors
    /// A file that is not there is `Ok(None)`, not an error (both platforms answer a
    /// missing file and an invisible project alike); `Unavailable`/`RateLimited` as
    /// usual.
    async fn read_file(
        &self,
        project: &ProjectRef,
        path: &str,
        sha: &str,
    ) -> Result<Option<Vec<u8>>, PlatformError>;

    /// Every file of the repository at commit `sha`, with its blob id (GitLab's
    /// repository tree, paged; GitHub's recursive git tree, one call).
    ///
    /// # Errors
    /// `NotFound` for an unknown commit; `Unsupported` where the platform
    /// offers no listing.
    async fn repository_tree(
        &self,
        project: &ProjectRef,
        sha: &str,
    ) -> Result<RepoTree, PlatformError> {
        let _ = (project, sha);
        Err(PlatformError::Unsupported("repository trees"))
    }

    /// The bytes of one blob of the repository.
    ///
    /// # Errors
    /// `NotFound` for an unknown blob; `Unsupported` as above.
    async fn repository_blob(
        &self,
        project: &ProjectRef,
        blob_id: &str,
    ) -> Result<Vec<u8>, PlatformError> {
        let _ = (project, blob_id);
        Err(PlatformError::Unsupported("repository blobs"))
    }

    /// The repository at commit `sha` from one download (a `tar.gz` archive),
    /// unpacked within `limits`, each file with its git blob id.
    ///
    /// # Errors
    /// `NotFound` for an unknown commit; `InvalidResponse` for an archive that
    /// cannot be read; `Unsupported` as above.
    async fn repository_archive(
        &self,
        project: &ProjectRef,
        sha: &str,
        limits: ArchiveLimits,
    ) -> Result<Archive, PlatformError> {
        let _ = (project, sha, limits);
        Err(PlatformError::Unsupported("repository archives"))
    }

    /// Posts line comments: one discussion each on hostA, one review holding all of
    /// them on hostB. Returns, per comment, the platform's id for it when it has one
    /// (hostA discussion ids).
    ///
    /// On hostA each comment is a call of its own: when one is refused, the ones
    /// before it stay posted though the call returns the error; on hostB the review
    /// is posted whole or not at all.
    ///
    /// # Errors
    /// `Rejected` when the platform refuses a position.
    async fn post_inline_comments(
        &self,
        project: &ProjectRef,
        iid: i64,
        refs: &DiffRefs,
        comments: &[InlineComment],
    ) -> Result<Vec<Option<String>>, PlatformError>;

    /// Every comment on the MR (line comments and general ones, by anyone), oldest
    /// first, all pages read: how a retried round finds what an interrupted attempt
    /// already posted.
    ///
    /// # Errors
    /// `NotFound` for an unknown project or MR.
    async fn list_comments(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<Vec<ExistingComment>, PlatformError>;

    /// The threads of the MR that reviewd's line comments started (those whose
    /// first comment carries a [`crate::review::markers::comment_marker`]), each
    /// with its reactions, replies and resolution, all pages read. Other threads
    /// are left out, and so are their reactions: they are never fetched.
    ///
    /// # Errors
    /// `NotFound` for an unknown project or MR; `Unsupported` where the platform
    /// offers no way to read them.
    async fn comment_threads(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<Vec<CommentThread>, PlatformError> {
        let _ = (project, iid);
        Err(PlatformError::Unsupported("comment threads"))
    }

    /// A token for a runner to clone `project` with, when the platform mints
    /// narrow ones (a GitHub App: that repository, `contents: read`, one hour);
    /// `None` where the config's own token is what a runner gets.
    ///
    /// # Errors
    /// As [`HostingPlatform::token_identity`].
    async fn runner_token(
        &self,
        project: &ProjectRef,
    ) -> Result<Option<RunnerToken>, PlatformError> {
        let _ = project;
        Ok(None)
    }

    /// Posts a general comment on the MR; returns its id.
    ///
    /// # Errors
    /// `NotFound` for an unknown MR.
    async fn post_comment(
        &self,
        project: &ProjectRef,
        iid: i64,
        body: &str,
    ) -> Result<String, PlatformError>;

    /// Replaces the text of a comment posted earlier.
    ///
    /// # Errors
    /// `NotFound` when the comment is gone.
    async fn edit_comment(
        &self,
        project: &ProjectRef,
        iid: i64,
        comment_id: &str,
        body: &str,
    ) -> Result<(), PlatformError>;

    /// What `author` may do on the project, by the platform's roles (GitLab's
    /// access level, with inherited memberships; GitHub's collaborator permission).
    /// Someone with no role is `Standing::Outsider`, not an error.
    ///
    /// # Errors
    /// `Unsupported` where the platform cannot say; `Unavailable` as usual.
    async fn standing(
        &self,
        project: &ProjectRef,
        author: &CommentAuthor,
    ) -> Result<Standing, PlatformError> {
        let _ = (project, author);
        Err(PlatformError::Unsupported("member access"))
    }

    /// Replies in a thread of the MR (a hostA discussion id; on hostB the id of the
    /// review comment that started the thread); returns the reply's id.
    ///
    /// # Errors
    /// `NotFound` when the thread is gone; `Unsupported` where the platform has no
    /// threads (the caller then posts a general comment).
    async fn reply_in_thread(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
        body: &str,
    ) -> Result<String, PlatformError> {
        let _ = (project, iid, thread_id, body);
        Err(PlatformError::Unsupported("thread replies"))
    }

    /// Resolves a thread of the MR (a hostA discussion; on hostB the review thread
    /// whose first comment has this id).
    ///
    /// # Errors
    /// `NotFound` when the thread is gone; `Unsupported` where threads cannot be
    /// resolved.
    async fn resolve_thread(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
    ) -> Result<(), PlatformError> {
        let _ = (project, iid, thread_id);
        Err(PlatformError::Unsupported("resolving threads"))
    }

    /// Replaces the MR's description (its body on hostB).
    ///
    /// # Errors
    /// `NotFound` for an unknown MR; `Unsupported` where it cannot be edited.
    async fn set_description(
        &self,
        project: &ProjectRef,
        iid: i64,
        description: &str,
    ) -> Result<(), PlatformError> {
        let _ = (project, iid, description);
        Err(PlatformError::Unsupported("editing descriptions"))
    }

    /// Posts reviewd's merge gate for commit `sha` (a commit status named
    /// `reviewd`, or a check run on hostB with an App): each call replaces what the
    /// previous one said for that commit.
    ///
    /// # Errors
    /// `Forbidden` when the credentials may not set statuses; `Unsupported` on
    /// platforms without them.
    async fn set_commit_gate(
        &self,
        project: &ProjectRef,
        sha: &str,
        gate: &CommitGate,
    ) -> Result<(), PlatformError> {
        let _ = (project, sha, gate);
        Err(PlatformError::Unsupported("commit statuses"))
    }

    /// Sets assignees and reviewers: platform user ids on hostA, logins on hostB
    /// (what each platform's projects store for people).
    ///
    /// # Errors
    /// `Unsupported` on platforms without it.
    async fn assign(
        &self,
        project: &ProjectRef,
        iid: i64,
        assignee_ids: &[String],
        reviewer_ids: &[String],
    ) -> Result<(), PlatformError>;

    /// # Errors
    /// `NotFound` for an unknown project, `Forbidden` without admin rights on it.
    async fn list_webhooks(
        &self,
        project: &ProjectRef,
    ) -> Result<Vec<PlatformWebhook>, PlatformError>;

    /// Registers a webhook for MR/PR and comment events, signed/authenticated by `secret`.
    ///
    /// # Errors
    /// `Forbidden` without admin rights on the project.
    async fn create_webhook(
        &self,
        project: &ProjectRef,
        url: &str,
        secret: Option<&str>,
    ) -> Result<PlatformWebhook, PlatformError>;

    /// # Errors
    /// `NotFound` when the hook is already gone.
    async fn delete_webhook(
        &self,
        project: &ProjectRef,
        hook_id: &str,
    ) -> Result<(), PlatformError>;

    /// Users of the instance (hostA), optionally members of one project.
    ///
    /// # Errors
    /// `Unsupported` on platforms without user search.
    async fn search_users(
        &self,
        search: Option<&str>,
        project: Option<&ProjectRef>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<PlatformUser>, PlatformError>;
}

/// OAuth2 against a platform instance (hostA).
#[async_trait]
pub trait PlatformOAuth: Send + Sync {
    /// Where to send the user's browser.
    fn authorize_url(
        &self,
        base_url: &str,
        app_id: &str,
        redirect_uri: &str,
        state: &str,
    ) -> String;

    /// # Errors
    /// `Rejected` for a bad or used code, `Unavailable` as usual.
    async fn exchange_code(
        &self,
        base_url: &str,
        app_id: &str,
        app_secret: &str,
        code: &str,
        redirect_uri: &str,
    ) -> Result<OAuthTokens, PlatformError>;

    /// # Errors
    /// `Rejected` for a revoked refresh token.
    async fn refresh(
        &self,
        base_url: &str,
        app_id: &str,
        app_secret: &str,
        refresh_token: &str,
    ) -> Result<OAuthTokens, PlatformError>;
}

/// Builds platform clients for stored connections.
pub trait PlatformClients: Send + Sync {
    fn client(&self, connection: &PlatformConnection) -> Arc<dyn HostingPlatform>;

    /// The OAuth2 flow of a platform type, when it has one.
    fn oauth(&self, platform_type: PlatformType) -> Option<Arc<dyn PlatformOAuth>>;
}
