//! What reviewd says back on the scripted platform: who may ask (grants, else the
//! project's members are developers), replies in line comments' threads (listed
//! with the MR's comments, as both platforms list them), resolved threads and
//! descriptions.

use super::state::not_found;
use super::{Listed, Op, Posted, ScriptedPlatform};
use reviewd_domain::model::conversation::CommentAuthor;
use reviewd_domain::model::diff::{CommentThread, ExistingComment, Resolution, ThreadReply};
use reviewd_domain::ports::{PlatformError, ProjectRef};
use reviewd_domain::review::standing::Standing;

impl ScriptedPlatform {
    pub(super) fn standing_of(
        &self,
        project: &ProjectRef,
        author: &CommentAuthor,
    ) -> Result<Standing, PlatformError> {
        let state = self.begin(Op::Standing)?;
        let member = self
            .project(&state, project)?
            .fixture
            .members
            .iter()
            .any(|m| m.username == author.username);
        // A grant decides; else the project's members are developers.
        Ok(state
            .standings
            .get(&author.username)
            .copied()
            .unwrap_or(if member {
                Standing::Developer
            } else {
                Standing::Outsider
            }))
    }

    pub(super) fn reply_as_reviewd(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
        body: &str,
    ) -> Result<String, PlatformError> {
        let mut state = self.begin(Op::ReplyInThread)?;
        self.mr(&state, project, iid)?;
        let project_id = self.project(&state, project)?.info.id.clone();
        let id = state.next_id().to_string();
        let username = state.identity.username.clone();
        let Some(listed) = state.comments.iter_mut().find(|l| {
            l.project_id == project_id
                && l.iid == iid
                && l.line
                && (l.comment.thread_id.as_deref() == Some(thread_id) || l.comment.id == thread_id)
        }) else {
            return Err(not_found("discussion", thread_id));
        };
        listed.thread.replies.push(ThreadReply {
            id: id.clone(),
            body: body.to_owned(),
            username,
        });
        // Listed with the MR's comments, as both platforms list thread replies.
        state.comments.push(Listed {
            project_id,
            iid,
            line: true,
            comment: ExistingComment {
                id: id.clone(),
                thread_id: Some(thread_id.to_owned()),
                body: body.to_owned(),
            },
            thread: CommentThread::default(),
        });
        let posted = Posted::Reply {
            thread_id: thread_id.to_owned(),
            id: id.clone(),
            body: body.to_owned(),
        };
        self.record(&mut state, project, iid, posted)?;
        Ok(id)
    }

    pub(super) fn resolve_in(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
    ) -> Result<(), PlatformError> {
        let mut state = self.begin(Op::ResolveThread)?;
        self.mr(&state, project, iid)?;
        let project_id = self.project(&state, project)?.info.id.clone();
        let username = state.identity.username.clone();
        let listed = state
            .comments
            .iter_mut()
            .find(|l| {
                l.project_id == project_id
                    && l.iid == iid
                    && l.line
                    && (l.comment.thread_id.as_deref() == Some(thread_id)
                        || l.comment.id == thread_id)
            })
            .ok_or_else(|| not_found("discussion", thread_id))?;
        listed.thread.resolved = Some(Resolution {
            username: Some(username),
        });
        Ok(())
    }

    pub(super) fn describe_as(
        &self,
        project: &ProjectRef,
        iid: i64,
        description: &str,
    ) -> Result<(), PlatformError> {
        let mut state = self.begin(Op::SetDescription)?;
        let index = self.project_index(&state, project)?;
        let mr = state.projects[index]
            .fixture
            .merge_requests
            .iter_mut()
            .find(|m| m.iid == iid)
            .ok_or_else(|| not_found("merge request", &iid.to_string()))?;
        mr.description = Some(description.to_owned());
        let posted = Posted::Description {
            body: description.to_owned(),
        };
        self.record(&mut state, project, iid, posted)
    }
}
