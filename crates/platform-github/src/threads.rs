//! The threads reviewd's line comments started on a pull request (their first
//! comment carries reviewd's marker and is written by reviewd's identity), with
//! what their readers did: replies and reactions from REST, resolution from GraphQL
//! (REST does not show it).

use crate::api::{GhReaction, GhRepo, GhReviewComment, GhUser};
use crate::client::GithubPlatform;
use reviewd_domain::model::diff::{CommentThread, Resolution, ThreadReaction, ThreadReply};
use reviewd_domain::ports::{PlatformError, ProjectRef};
use reviewd_domain::review::markers::comment_fingerprint;
use reviewd_http::MAX_PAGES;
use serde::Deserialize;
use serde_json::json;
use std::collections::HashMap;

pub(crate) const REVIEW_THREADS: &str =
    "query($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved resolvedBy { login } comments(first: 1) { nodes { fullDatabaseId } } }
      }
    }
  }
}";

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThreadsData {
    pub(crate) repository: Option<Repository>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Repository {
    pub(crate) pull_request: Option<PullRequest>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PullRequest {
    pub(crate) review_threads: Connection<ReviewThread>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Connection<T> {
    pub(crate) page_info: PageInfo,
    pub(crate) nodes: Vec<T>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PageInfo {
    pub(crate) has_next_page: bool,
    pub(crate) end_cursor: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReviewThread {
    /// The thread's node id (what `resolveReviewThread` takes).
    pub(crate) id: String,
    pub(crate) is_resolved: bool,
    pub(crate) resolved_by: Option<Login>,
    pub(crate) comments: Nodes<FirstComment>,
}

impl ReviewThread {
    /// The REST id of the thread's first comment: how reviewd names a thread.
    pub(crate) fn first_comment_id(&self) -> Option<i64> {
        self.comments
            .nodes
            .first()
            .and_then(|c| c.full_database_id.as_ref())
            .and_then(BigInt::as_i64)
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct Login {
    pub(crate) login: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Nodes<T> {
    pub(crate) nodes: Vec<T>,
}

/// `fullDatabaseId`, not `databaseId`: GitHub deprecated the 32-bit `Int` for
/// the `BigInt` scalar, which it encodes as a string.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FirstComment {
    pub(crate) full_database_id: Option<BigInt>,
}

/// GraphQL's `BigInt`: a string of digits (a number is taken too).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum BigInt {
    Text(String),
    Number(i64),
}

impl BigInt {
    fn as_i64(&self) -> Option<i64> {
        match self {
            BigInt::Text(t) => t.parse().ok(),
            BigInt::Number(n) => Some(*n),
        }
    }
}

impl GithubPlatform {
    pub(crate) async fn threads(
        &self,
        project: &ProjectRef,
        repo: &str,
        number: i64,
    ) -> Result<Vec<CommentThread>, PlatformError> {
        let comments: Vec<GhReviewComment> = self
            .get_all(&format!("{repo}/pulls/{number}/comments"), &[])
            .await?;
        let (roots, replies): (Vec<_>, Vec<_>) = comments
            .into_iter()
            .partition(|c| c.in_reply_to_id.is_none());
        let marked: Vec<GhReviewComment> = roots
            .into_iter()
            .filter(|c| {
                c.body
                    .as_deref()
                    .is_some_and(|b| comment_fingerprint(b).is_some())
            })
            .collect();
        if marked.is_empty() {
            return Ok(Vec::new());
        }
        // Anyone who can comment can copy a marker into a thread of their own:
        // only the threads reviewd's identity started are reviewd's.
        let own = self.own_login().await?;
        let roots: Vec<GhReviewComment> = marked
            .into_iter()
            .filter(|c| {
                c.user
                    .as_ref()
                    .is_some_and(|u| u.login.eq_ignore_ascii_case(&own))
            })
            .collect();
        if roots.is_empty() {
            return Ok(Vec::new());
        }
        let mut resolutions = self.resolutions(project, repo, number).await?;
        let mut threads = Vec::with_capacity(roots.len());
        for root in roots {
            // The summary says whether there is anything to fetch: most comments
            // get no reaction, and each fetch is a call. Without one (a server that
            // leaves it out) only fetching tells.
            let reacted = root.reactions.as_ref().is_none_or(|r| r.total_count > 0);
            let reactions = if reacted {
                self.reactions(repo, root.id).await?
            } else {
                Vec::new()
            };
            let replies = replies
                .iter()
                .filter(|r| r.in_reply_to_id == Some(root.id))
                .map(|r| ThreadReply {
                    id: r.id.to_string(),
                    body: r.body.clone().unwrap_or_default(),
                    username: login(r.user.as_ref()),
                })
                .collect();
            threads.push(CommentThread {
                resolved: resolutions.remove(&root.id),
                body: root.body.unwrap_or_default(),
                reactions,
                replies,
            });
        }
        Ok(threads)
    }

    /// The login reviewd's comments show: the token's user (`GET /user`), or a
    /// GitHub App's bot, `{slug}[bot]`.
    async fn own_login(&self) -> Result<String, PlatformError> {
        if self.app_installation()?.is_some() {
            return self.app_login().await;
        }
        let user: GhUser = self.get_json("/user", &[]).await?;
        Ok(user.login)
    }

    async fn reactions(
        &self,
        repo: &str,
        comment_id: i64,
    ) -> Result<Vec<ThreadReaction>, PlatformError> {
        let reactions: Vec<GhReaction> = self
            .get_all(
                &format!("{repo}/pulls/comments/{comment_id}/reactions"),
                &[],
            )
            .await?;
        Ok(reactions
            .into_iter()
            .map(|r| ThreadReaction {
                username: login(r.user.as_ref()),
                name: r.content,
            })
            .collect())
    }

    /// The resolved threads of the pull request, by the id of their first comment.
    async fn resolutions(
        &self,
        project: &ProjectRef,
        repo: &str,
        number: i64,
    ) -> Result<HashMap<i64, Resolution>, PlatformError> {
        let mut resolved = HashMap::new();
        self.find_review_thread(project, repo, number, |thread| {
            if thread.is_resolved
                && let Some(id) = thread.first_comment_id()
            {
                let username = thread.resolved_by.map(|u| u.login);
                resolved.insert(id, Resolution { username });
            }
            None::<()>
        })
        .await?;
        Ok(resolved)
    }

    /// Hands the pull request's review threads to `found`, page by page
    /// (GraphQL), until it returns something; `None` when no thread did.
    /// Bounded as the REST lists are, against a server that always has more.
    pub(crate) async fn find_review_thread<T: Send>(
        &self,
        project: &ProjectRef,
        repo: &str,
        number: i64,
        mut found: impl FnMut(ReviewThread) -> Option<T> + Send,
    ) -> Result<Option<T>, PlatformError> {
        let full_name = self.full_name(project).await?;
        let Some((owner, name)) = full_name.split_once('/') else {
            return Err(PlatformError::InvalidResponse(format!(
                "`{full_name}` is no owner/name"
            )));
        };
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let variables =
                json!({ "owner": owner, "name": name, "number": number, "cursor": cursor });
            let data: ThreadsData = self.query(repo, REVIEW_THREADS, &variables).await?;
            // GitHub reports an unknown repository or pull request as an error too;
            // a `null` without one is read the same way.
            let threads = data
                .repository
                .and_then(|r| r.pull_request)
                .ok_or_else(|| PlatformError::NotFound(format!("pull request #{number}")))?
                .review_threads;
            for thread in threads.nodes {
                if let Some(answer) = found(thread) {
                    return Ok(Some(answer));
                }
            }
            match threads.page_info.end_cursor {
                Some(next) if threads.page_info.has_next_page => cursor = Some(next),
                _ => break,
            }
        }
        Ok(None)
    }

    /// `owner/name` of the project: GraphQL addresses repositories by name only.
    async fn full_name(&self, project: &ProjectRef) -> Result<String, PlatformError> {
        if project.full_path.contains('/') {
            return Ok(project.full_path.clone());
        }
        let repo: GhRepo = self
            .get_json(&format!("/repositories/{}", project.id), &[])
            .await?;
        Ok(repo.full_name)
    }
}

/// A deleted account's comments and reactions come with `user: null`; GitHub shows
/// them as `ghost`.
fn login(user: Option<&crate::api::GhAuthor>) -> String {
    user.map_or_else(|| "ghost".to_owned(), |u| u.login.clone())
}
