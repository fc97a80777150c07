//! What reviewd needs to talk in a pull request: who may ask (a collaborator's
//! permission), replies in review threads, resolving a thread (GraphQL only), and
//! the pull request's body (`describe`).

use crate::client::GithubPlatform;
use reviewd_domain::model::conversation::CommentAuthor;
use reviewd_domain::ports::{PlatformError, ProjectRef};
use reviewd_domain::review::standing::Standing;
use serde::Deserialize;
use serde_json::json;

/// `GET /repos/{owner}/{repo}/collaborators/{username}/permission`.
#[derive(Debug, Deserialize)]
struct Permission {
    /// `admin`, `write`, `read` or `none` (a maintainer shows `write`).
    permission: String,
    /// The finer role: `admin`, `maintain`, `write`, `triage`, `read`...
    #[serde(default)]
    role_name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Created {
    id: i64,
}

const RESOLVE: &str = "mutation($thread: ID!) {
  resolveReviewThread(input: { threadId: $thread }) { thread { id isResolved } }
}";

impl GithubPlatform {
    pub(crate) async fn permission_of(
        &self,
        repo: &str,
        author: &CommentAuthor,
    ) -> Result<Standing, PlatformError> {
        let route = format!("{repo}/collaborators/{}/permission", author.username);
        match self.get_json::<Permission>(&route, &[]).await {
            Ok(p) => Ok(Standing::from_github_permission(
                p.role_name.as_deref().unwrap_or(&p.permission),
            )),
            // Not a collaborator (GitHub answers 404 for some, `none` for others).
            Err(PlatformError::NotFound(_)) => Ok(Standing::Outsider),
            Err(e) => Err(e),
        }
    }

    /// `POST /pulls/{n}/comments/{id}/replies`: `thread_id` is the thread's first
    /// comment (GitHub makes a reply to a reply one to the first).
    pub(crate) async fn reply_to(
        &self,
        repo: &str,
        number: i64,
        thread_id: &str,
        body: &str,
    ) -> Result<String, PlatformError> {
        let comment: i64 = thread_id.parse().map_err(|_| {
            PlatformError::Rejected(format!("`{thread_id}` is not a review comment id"))
        })?;
        let created: Created = self
            .post_json(
                &format!("{repo}/pulls/{number}/comments/{comment}/replies"),
                &json!({ "body": body }),
            )
            .await?;
        Ok(created.id.to_string())
    }

    /// Finds the review thread whose first comment is `thread_id` and resolves it.
    pub(crate) async fn resolve(
        &self,
        project: &ProjectRef,
        repo: &str,
        number: i64,
        thread_id: &str,
    ) -> Result<(), PlatformError> {
        let first: i64 = thread_id.parse().map_err(|_| {
            PlatformError::Rejected(format!("`{thread_id}` is not a review comment id"))
        })?;
        let thread = self
            .find_review_thread(project, repo, number, |t| {
                (t.first_comment_id() == Some(first)).then_some(t.id)
            })
            .await?;
        if let Some(thread) = thread {
            let _: serde_json::Value = self
                .query(repo, RESOLVE, &json!({ "thread": thread }))
                .await?;
            return Ok(());
        }
        Err(PlatformError::NotFound(format!(
            "review thread of comment {thread_id}"
        )))
    }
}
