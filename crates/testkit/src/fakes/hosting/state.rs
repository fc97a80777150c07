//! How a call reaches the platform's state: locked, counted, failed on demand or for an
//! unknown token; projects and merge requests found as each platform addresses them;
//! posts recorded; lists paged as each platform pages them.

use super::{MrFixture, Op, Post, Posted, Project, ScriptedPlatform, State};
use reviewd_domain::model::diff::InlineComment;
use reviewd_domain::model::{MergeRequest, MrState, PlatformPage, PlatformType, PlatformUser};
use reviewd_domain::ports::{PlatformError, ProjectRef};
use std::collections::VecDeque;
use std::sync::MutexGuard;

impl ScriptedPlatform {
    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// Locks the platform for one call: counts it, then fails it if the token is
    /// unknown or a failure is queued for it.
    pub(super) fn begin(&self, op: Op) -> Result<MutexGuard<'_, State>, PlatformError> {
        let mut state = self.lock();
        state.calls.push(op);
        if !self.token_known {
            return Err(PlatformError::Unauthorized("401 Unauthorized".to_owned()));
        }
        match state.failures.get_mut(&op).and_then(VecDeque::pop_front) {
            Some(error) => Err(error),
            None => Ok(state),
        }
    }

    pub(super) fn web_url(&self, full_path: &str) -> String {
        format!("https://{}.example.com/{full_path}", self.platform_type)
    }

    /// hostA takes a numeric id or the full path in the id; the hostB adapter
    /// addresses a repository by its full path when it has one, else by id.
    pub(super) fn project_index(
        &self,
        state: &State,
        project: &ProjectRef,
    ) -> Result<usize, PlatformError> {
        let addressed = |p: &Project| match self.platform_type {
            PlatformType::Gitlab => project.id == p.info.id || project.id == p.info.full_path,
            PlatformType::Github if project.full_path.contains('/') => {
                project.full_path == p.info.full_path
            }
            PlatformType::Github => project.id == p.info.id,
        };
        state
            .projects
            .iter()
            .position(addressed)
            .ok_or_else(|| not_found("project", &project.id))
    }

    pub(super) fn project<'s>(
        &self,
        state: &'s State,
        project: &ProjectRef,
    ) -> Result<&'s Project, PlatformError> {
        Ok(&state.projects[self.project_index(state, project)?])
    }

    pub(super) fn mr<'s>(
        &self,
        state: &'s State,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<&'s MrFixture, PlatformError> {
        self.project(state, project)?
            .fixture
            .merge_requests
            .iter()
            .find(|m| m.iid == iid)
            .ok_or_else(|| not_found("merge request", &iid.to_string()))
    }

    pub(super) fn record(
        &self,
        state: &mut State,
        project: &ProjectRef,
        iid: i64,
        posted: Posted,
    ) -> Result<(), PlatformError> {
        let project_id = self.project(state, project)?.info.id.clone();
        state.posts.push(Post {
            project_id,
            iid,
            posted,
        });
        Ok(())
    }

    pub(super) fn to_merge_request(&self, project: &Project, mr: &MrFixture) -> MergeRequest {
        let path = match self.platform_type {
            PlatformType::Gitlab => format!("-/merge_requests/{}", mr.iid),
            PlatformType::Github => format!("pull/{}", mr.iid),
        };
        let web_url = format!("{}/{path}", project.info.web_url);
        mr.to_merge_request(self.platform_type, web_url)
    }

    /// A page as each platform serves it: hostA filters before paging and counts the
    /// total; hostB pages what its API filters (`server`) and the adapter filters
    /// the page (`client`) afterwards, without a total.
    pub(super) fn page<T>(
        &self,
        items: Vec<T>,
        server: impl Fn(&T) -> bool,
        client: impl Fn(&T) -> bool,
        page: u32,
        per_page: u32,
    ) -> PlatformPage<T> {
        let filtered_first = self.platform_type == PlatformType::Gitlab;
        let listed: Vec<T> = items
            .into_iter()
            .filter(|i| server(i) && (!filtered_first || client(i)))
            .collect();
        let total = listed.len() as u64;
        let skip = u64::from(page.saturating_sub(1)) * u64::from(per_page);
        let mut items: Vec<T> = listed
            .into_iter()
            .skip(usize::try_from(skip).unwrap_or(usize::MAX))
            .take(per_page as usize)
            .collect();
        items.retain(|i| client(i));
        PlatformPage {
            items,
            page,
            per_page,
            total: filtered_first.then_some(total),
            has_next: total > skip + u64::from(per_page),
        }
    }
}

pub(super) fn not_found(what: &str, id: &str) -> PlatformError {
    PlatformError::NotFound(format!("404 {what} {id} not found"))
}

pub(super) fn rejected_position(comment: &InlineComment) -> PlatformError {
    PlatformError::Rejected(format!(
        "line {} of {} is not in the diff",
        comment.line, comment.file_path
    ))
}

pub(super) fn contains(haystack: &str, needle: Option<&str>) -> bool {
    needle.is_none_or(|n| haystack.to_lowercase().contains(&n.to_lowercase()))
}

pub(super) fn user_matches(user: &PlatformUser, search: Option<&str>) -> bool {
    contains(&user.username, search) || contains(&user.name, search)
}

/// The state the platform's API filters on: hostB knows only open and closed.
pub(super) fn listed_state(platform_type: PlatformType, wanted: MrState, mr: MrState) -> bool {
    match (platform_type, wanted) {
        (_, MrState::All) => true,
        (PlatformType::Github, MrState::Merged | MrState::Closed) => mr != MrState::Opened,
        _ => mr == wanted,
    }
}
