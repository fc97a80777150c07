//! What reviewd needs to talk in a merge request: a member's access level
//! (inherited memberships included), replies in discussions, resolving one, and
//! the description `describe` writes, and the assignment of a new MR.

use crate::api::{GlMember, GlNote};
use crate::client::GitlabPlatform;
use crate::endpoints::{ReplyInDiscussion, ResolveDiscussion};
use crate::ids::{gl_id, parsed_id, user_ids};
use crate::rest::{built, gl_error};
use gitlab::api::projects::merge_requests as mr;
use gitlab::api::projects::{self as p};
use gitlab::api::{AsyncQuery, ignore};
use reviewd_domain::model::conversation::CommentAuthor;
use reviewd_domain::ports::{PlatformError, ProjectRef};
use reviewd_domain::review::standing::Standing;

impl GitlabPlatform {
    pub(crate) async fn member_standing(
        &self,
        project: &ProjectRef,
        author: &CommentAuthor,
    ) -> Result<Standing, PlatformError> {
        // The webhook names the user's id; members of the project's groups count.
        let Some(id) = author.id.as_deref() else {
            return Ok(Standing::Outsider);
        };
        let member = p::members::AllProjectMember::builder()
            .project(project.id.as_str())
            .user(parsed_id(id, "user")?)
            .build()
            .map_err(built)?;
        match member.query_async(&self.rest).await.map_err(gl_error) {
            Ok(GlMember { access_level }) => Ok(Standing::from_gitlab_level(access_level)),
            Err(PlatformError::NotFound(_)) => Ok(Standing::Outsider),
            Err(e) => Err(e),
        }
    }

    pub(crate) async fn discussion_reply(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
        body: &str,
    ) -> Result<String, PlatformError> {
        let endpoint = ReplyInDiscussion {
            project: project.id.as_str(),
            merge_request: gl_id(iid, "merge request")?,
            discussion: thread_id,
            body,
        };
        let note: GlNote = endpoint.query_async(&self.rest).await.map_err(gl_error)?;
        Ok(note.id.to_string())
    }

    pub(crate) async fn resolve_discussion(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
    ) -> Result<(), PlatformError> {
        let endpoint = ResolveDiscussion {
            project: project.id.as_str(),
            merge_request: gl_id(iid, "merge request")?,
            discussion: thread_id,
        };
        ignore(endpoint)
            .query_async(&self.rest)
            .await
            .map_err(gl_error)
    }

    pub(crate) async fn edit_description(
        &self,
        project: &ProjectRef,
        iid: i64,
        description: &str,
    ) -> Result<(), PlatformError> {
        let edit = mr::EditMergeRequest::builder()
            .project(project.id.as_str())
            .merge_request(gl_id(iid, "merge request")?)
            .description(description)
            .build()
            .map_err(built)?;
        ignore(edit).query_async(&self.rest).await.map_err(gl_error)
    }

    /// Assignees and reviewers by user id; nothing is sent when both are empty.
    pub(crate) async fn edit_assignment(
        &self,
        project: &ProjectRef,
        iid: i64,
        assignee_ids: &[String],
        reviewer_ids: &[String],
    ) -> Result<(), PlatformError> {
        if assignee_ids.is_empty() && reviewer_ids.is_empty() {
            return Ok(());
        }
        let mut edit = mr::EditMergeRequest::builder();
        edit.project(project.id.as_str())
            .merge_request(gl_id(iid, "merge request")?);
        // `assignee_ids[]` / `reviewer_ids[]`, even for one id (`assignee_id` is the
        // older single-assignee field).
        if !assignee_ids.is_empty() {
            edit.assignees(user_ids(assignee_ids)?.into_iter());
        }
        if !reviewer_ids.is_empty() {
            edit.reviewers(user_ids(reviewer_ids)?.into_iter());
        }
        let edit = edit.build().map_err(built)?;
        ignore(edit).query_async(&self.rest).await.map_err(gl_error)
    }
}
