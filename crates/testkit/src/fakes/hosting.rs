//! A hosting platform in memory: [`ScriptedPlatform`] holds projects, members, merge
//! requests with their diffs, compares and webhooks, records everything posted, and
//! fails on demand; [`ScriptedClients`] hands it out for any connection and
//! [`FakeOAuth`] stands in for the OAuth2 flow. It answers as the real adapters do
//! for its `platform_type` (hostB: no user search, no start commit, pages filtered
//! after the fact), which `contract::hosting` checks against both.

mod fixtures;
mod oauth;

pub use fixtures::{
    MrFixture, ProjectFixture, added, binary, deleted, modified, platform_user, renamed,
};
pub use oauth::{FakeOAuth, ScriptedClients};

use async_trait::async_trait;
use reviewd_domain::model::diff::{DiffRefs, FileDiff, InlineComment, MergeRequestDiff};
use reviewd_domain::model::{
    MergeRequest, MrState, PlatformPage, PlatformProject, PlatformType, PlatformUser,
    PlatformWebhook, TokenIdentity,
};
use reviewd_domain::ports::{HostingPlatform, PlatformError, ProjectRef};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

/// The operations of [`HostingPlatform`], to inject failures into and count calls of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    TokenIdentity,
    ListProjects,
    GetProject,
    ListMembers,
    ListMergeRequests,
    GetMergeRequest,
    MergeRequestDiff,
    Compare,
    PostInline,
    PostComment,
    EditComment,
    Assign,
    ListWebhooks,
    CreateWebhook,
    DeleteWebhook,
    SearchUsers,
}

/// Something the platform accepted on a merge request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Posted {
    /// A line comment, placed at `head_sha`.
    Inline {
        comment: InlineComment,
        head_sha: String,
    },
    Comment {
        id: String,
        body: String,
    },
    Edit {
        id: String,
        body: String,
    },
    Assign {
        assignee_ids: Vec<String>,
        reviewer_ids: Vec<String>,
    },
}

/// A post and the merge request it went to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Post {
    pub project_id: String,
    pub iid: i64,
    pub posted: Posted,
}

struct Project {
    info: PlatformProject,
    fixture: ProjectFixture,
    compares: HashMap<(String, String), Vec<FileDiff>>,
    hooks: Vec<PlatformWebhook>,
}

struct State {
    identity: TokenIdentity,
    projects: Vec<Project>,
    posts: Vec<Post>,
    failures: HashMap<Op, VecDeque<PlatformError>>,
    calls: Vec<Op>,
    last_id: u64,
}

impl State {
    fn next_id(&mut self) -> u64 {
        self.last_id += 1;
        self.last_id
    }
}

/// A platform in memory. Clones share the platform.
#[derive(Clone)]
pub struct ScriptedPlatform {
    platform_type: PlatformType,
    state: Arc<Mutex<State>>,
    token_known: bool,
}

impl ScriptedPlatform {
    /// An empty platform whose token belongs to `reviewd-bot` (user 7).
    #[must_use]
    pub fn new(platform_type: PlatformType) -> Self {
        let scopes = match platform_type {
            PlatformType::HostA => vec!["api".to_owned()],
            PlatformType::HostB => vec!["repo".to_owned(), "admin:repo_hook".to_owned()],
        };
        let identity = TokenIdentity {
            user_id: "7".to_owned(),
            username: "reviewd-bot".to_owned(),
            name: Some("Reviewd Bot".to_owned()),
            scopes: Some(scopes),
        };
        Self {
            platform_type,
            state: Arc::new(Mutex::new(State {
                identity,
                projects: Vec::new(),
                posts: Vec::new(),
                failures: HashMap::new(),
                calls: Vec::new(),
                last_id: 1000,
            })),
            token_known: true,
        }
    }

    #[must_use]
    pub fn with_identity(self, identity: TokenIdentity) -> Self {
        self.lock().identity = identity;
        self
    }

    /// The same platform through a token it does not know: every call is `Unauthorized`.
    #[must_use]
    pub fn with_bad_token(&self) -> Self {
        Self {
            token_known: false,
            ..self.clone()
        }
    }

    #[must_use]
    pub fn identity(&self) -> TokenIdentity {
        self.lock().identity.clone()
    }

    /// Puts a project on the platform, with an id of its own.
    pub fn add_project(&self, fixture: ProjectFixture) -> ProjectRef {
        let mut state = self.lock();
        let id = state.next_id().to_string();
        let info = PlatformProject {
            id: id.clone(),
            name: fixture.name().to_owned(),
            full_path: fixture.full_path.clone(),
            web_url: self.web_url(&fixture.full_path),
            default_branch: Some(fixture.default_branch.clone()),
            visibility: Some("private".to_owned()),
            platform_type: self.platform_type,
        };
        state.projects.push(Project {
            info,
            fixture: fixture.clone(),
            compares: HashMap::new(),
            hooks: Vec::new(),
        });
        ProjectRef {
            id,
            full_path: fixture.full_path,
        }
    }

    /// Adds a merge request, or replaces the one with its iid (a new push).
    ///
    /// # Panics
    /// For a project that was never added.
    pub fn put_merge_request(&self, project: &ProjectRef, mr: MrFixture) {
        let mut state = self.lock();
        let index = self.project_index(&state, project).unwrap();
        let mrs = &mut state.projects[index].fixture.merge_requests;
        mrs.retain(|m| m.iid != mr.iid);
        mrs.push(mr);
    }

    /// What `compare(from, to)` answers for the project.
    ///
    /// # Panics
    /// For a project that was never added.
    pub fn add_compare(&self, project: &ProjectRef, from: &str, to: &str, files: Vec<FileDiff>) {
        let mut state = self.lock();
        let index = self.project_index(&state, project).unwrap();
        state.projects[index]
            .compares
            .insert((from.to_owned(), to.to_owned()), files);
    }

    /// The next call of `op` fails with `error`.
    pub fn fail_next(&self, op: Op, error: PlatformError) {
        self.fail_times(op, 1, error);
    }

    /// The next `times` calls of `op` fail with `error`.
    pub fn fail_times(&self, op: Op, times: usize, error: PlatformError) {
        self.lock()
            .failures
            .entry(op)
            .or_default()
            .extend(std::iter::repeat_n(error, times));
    }

    /// Every post accepted so far, oldest first.
    #[must_use]
    pub fn posts(&self) -> Vec<Post> {
        self.lock().posts.clone()
    }

    /// What was posted on one merge request, oldest first.
    #[must_use]
    pub fn posted(&self, project: &ProjectRef, iid: i64) -> Vec<Posted> {
        let state = self.lock();
        let Ok(index) = self.project_index(&state, project) else {
            return Vec::new();
        };
        let id = &state.projects[index].info.id;
        state
            .posts
            .iter()
            .filter(|p| &p.project_id == id && p.iid == iid)
            .map(|p| p.posted.clone())
            .collect()
    }

    /// Every line comment accepted, oldest first.
    #[must_use]
    pub fn inline_comments(&self) -> Vec<InlineComment> {
        self.posts()
            .into_iter()
            .filter_map(|p| match p.posted {
                Posted::Inline { comment, .. } => Some(comment),
                _ => None,
            })
            .collect()
    }

    /// Every call made, failed ones included, in order.
    #[must_use]
    pub fn calls(&self) -> Vec<Op> {
        self.lock().calls.clone()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// Locks the platform for one call: counts it, then fails it if the token is
    /// unknown or a failure is queued for it.
    fn begin(&self, op: Op) -> Result<MutexGuard<'_, State>, PlatformError> {
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

    fn web_url(&self, full_path: &str) -> String {
        format!("https://{}.example.com/{full_path}", self.platform_type)
    }

    /// hostA takes a numeric id or the full path in the id; the hostB adapter
    /// addresses a repository by its full path when it has one, else by id.
    fn project_index(&self, state: &State, project: &ProjectRef) -> Result<usize, PlatformError> {
        let addressed = |p: &Project| match self.platform_type {
            PlatformType::HostA => project.id == p.info.id || project.id == p.info.full_path,
            PlatformType::HostB if project.full_path.contains('/') => {
                project.full_path == p.info.full_path
            }
            PlatformType::HostB => project.id == p.info.id,
        };
        state
            .projects
            .iter()
            .position(addressed)
            .ok_or_else(|| not_found("project", &project.id))
    }

    fn project<'s>(
        &self,
        state: &'s State,
        project: &ProjectRef,
    ) -> Result<&'s Project, PlatformError> {
        Ok(&state.projects[self.project_index(state, project)?])
    }

    fn mr<'s>(
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

    fn record(
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

    fn to_merge_request(&self, project: &Project, mr: &MrFixture) -> MergeRequest {
        let path = match self.platform_type {
            PlatformType::HostA => format!("-/merge_requests/{}", mr.iid),
            PlatformType::HostB => format!("pull/{}", mr.iid),
        };
        let web_url = format!("{}/{path}", project.info.web_url);
        mr.to_merge_request(self.platform_type, web_url)
    }

    /// A page as each platform serves it: hostA filters before paging and counts the
    /// total; hostB pages what its API filters (`server`) and the adapter filters
    /// the page (`client`) afterwards, without a total.
    fn page<T>(
        &self,
        items: Vec<T>,
        server: impl Fn(&T) -> bool,
        client: impl Fn(&T) -> bool,
        page: u32,
        per_page: u32,
    ) -> PlatformPage<T> {
        let filtered_first = self.platform_type == PlatformType::HostA;
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

fn not_found(what: &str, id: &str) -> PlatformError {
    PlatformError::NotFound(format!("404 {what} {id} not found"))
}

fn rejected_position(comment: &InlineComment) -> PlatformError {
    PlatformError::Rejected(format!(
        "line {} of {} is not in the diff",
        comment.line, comment.file_path
    ))
}

fn contains(haystack: &str, needle: Option<&str>) -> bool {
    needle.is_none_or(|n| haystack.to_lowercase().contains(&n.to_lowercase()))
}

fn user_matches(user: &PlatformUser, search: Option<&str>) -> bool {
    contains(&user.username, search) || contains(&user.name, search)
}

/// The state the platform's API filters on: hostB knows only open and closed.
fn listed_state(platform_type: PlatformType, wanted: MrState, mr: MrState) -> bool {
    match (platform_type, wanted) {
        (_, MrState::All) => true,
        (PlatformType::HostB, MrState::Merged | MrState::Closed) => mr != MrState::Opened,
        _ => mr == wanted,
    }
}

#[async_trait]
impl HostingPlatform for ScriptedPlatform {
    fn platform_type(&self) -> PlatformType {
        self.platform_type
    }

    async fn token_identity(&self) -> Result<TokenIdentity, PlatformError> {
        Ok(self.begin(Op::TokenIdentity)?.identity.clone())
    }

    async fn list_projects(&self) -> Result<Vec<PlatformProject>, PlatformError> {
        let state = self.begin(Op::ListProjects)?;
        let mut projects: Vec<_> = state.projects.iter().map(|p| p.info.clone()).collect();
        if self.platform_type == PlatformType::HostB {
            projects.sort_by(|a, b| a.full_path.cmp(&b.full_path));
        }
        Ok(projects)
    }

    async fn get_project(&self, project: &ProjectRef) -> Result<PlatformProject, PlatformError> {
        let state = self.begin(Op::GetProject)?;
        Ok(self.project(&state, project)?.info.clone())
    }

    async fn list_members(
        &self,
        project: &ProjectRef,
        search: Option<&str>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<PlatformUser>, PlatformError> {
        let state = self.begin(Op::ListMembers)?;
        let members = self.project(&state, project)?.fixture.members.clone();
        Ok(self.page(
            members,
            |_| true,
            |u| user_matches(u, search),
            page,
            per_page,
        ))
    }

    async fn list_merge_requests(
        &self,
        project: &ProjectRef,
        state: MrState,
        search: Option<&str>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<MergeRequest>, PlatformError> {
        let locked = self.begin(Op::ListMergeRequests)?;
        let p = self.project(&locked, project)?;
        let mut mrs = p.fixture.merge_requests.clone();
        // hostA lists newest first, hostB (as the adapter asks) most recently updated first.
        match self.platform_type {
            PlatformType::HostA => mrs.sort_by_key(|m| std::cmp::Reverse(m.created_at)),
            PlatformType::HostB => mrs.sort_by_key(|m| std::cmp::Reverse(m.updated_at)),
        }
        let searched = |m: &MrFixture| match self.platform_type {
            PlatformType::HostA => {
                contains(&m.title, search)
                    || contains(m.description.as_deref().unwrap_or(""), search)
            }
            PlatformType::HostB => contains(&m.title, search),
        };
        let listed = self.page(
            mrs,
            |m| listed_state(self.platform_type, state, m.state),
            |m| (state == MrState::All || m.state == state) && searched(m),
            page,
            per_page,
        );
        Ok(PlatformPage {
            items: listed
                .items
                .iter()
                .map(|m| self.to_merge_request(p, m))
                .collect(),
            page: listed.page,
            per_page: listed.per_page,
            total: listed.total,
            has_next: listed.has_next,
        })
    }

    async fn get_merge_request(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<MergeRequest, PlatformError> {
        let state = self.begin(Op::GetMergeRequest)?;
        let mr = self.mr(&state, project, iid)?;
        Ok(self.to_merge_request(self.project(&state, project)?, mr))
    }

    async fn merge_request_diff(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<MergeRequestDiff, PlatformError> {
        let state = self.begin(Op::MergeRequestDiff)?;
        let mr = self.mr(&state, project, iid)?;
        Ok(MergeRequestDiff {
            refs: mr.refs(self.platform_type),
            files: mr.files.clone(),
        })
    }

    async fn compare(
        &self,
        project: &ProjectRef,
        from: &str,
        to: &str,
    ) -> Result<Vec<FileDiff>, PlatformError> {
        let state = self.begin(Op::Compare)?;
        self.project(&state, project)?
            .compares
            .get(&(from.to_owned(), to.to_owned()))
            .cloned()
            .ok_or_else(|| not_found("commit", &format!("{from}...{to}")))
    }

    async fn post_inline_comments(
        &self,
        project: &ProjectRef,
        iid: i64,
        refs: &DiffRefs,
        comments: &[InlineComment],
    ) -> Result<Vec<Option<String>>, PlatformError> {
        let mut state = self.begin(Op::PostInline)?;
        if comments.is_empty() {
            return Ok(Vec::new());
        }
        let mr = self.mr(&state, project, iid)?.clone();
        if self.platform_type == PlatformType::HostB {
            // One review holds every comment: one bad position refuses them all.
            if let Some(bad) = comments
                .iter()
                .find(|c| !mr.takes_comment(self.platform_type, c))
            {
                return Err(rejected_position(bad));
            }
        }
        let mut ids = Vec::with_capacity(comments.len());
        for comment in comments {
            // hostA posts one discussion at a time: those before a refused one stay.
            if !mr.takes_comment(self.platform_type, comment) {
                return Err(rejected_position(comment));
            }
            let posted = Posted::Inline {
                comment: comment.clone(),
                head_sha: refs.head_sha.clone(),
            };
            self.record(&mut state, project, iid, posted)?;
            ids.push(match self.platform_type {
                PlatformType::HostA => Some(format!("{:040x}", state.next_id())),
                PlatformType::HostB => None,
            });
        }
        Ok(ids)
    }

    async fn post_comment(
        &self,
        project: &ProjectRef,
        iid: i64,
        body: &str,
    ) -> Result<String, PlatformError> {
        let mut state = self.begin(Op::PostComment)?;
        self.mr(&state, project, iid)?;
        let id = state.next_id().to_string();
        let posted = Posted::Comment {
            id: id.clone(),
            body: body.to_owned(),
        };
        self.record(&mut state, project, iid, posted)?;
        Ok(id)
    }

    async fn edit_comment(
        &self,
        project: &ProjectRef,
        iid: i64,
        comment_id: &str,
        body: &str,
    ) -> Result<(), PlatformError> {
        let mut state = self.begin(Op::EditComment)?;
        let project_id = self.project(&state, project)?.info.id.clone();
        // hostB addresses comments by id across the repository; hostA within the MR.
        let posted_on = state.posts.iter().find_map(|p| match &p.posted {
            Posted::Comment { id, .. } if id == comment_id && p.project_id == project_id => {
                Some(p.iid)
            }
            _ => None,
        });
        let iid = match (posted_on, self.platform_type) {
            (Some(on), PlatformType::HostB) => on,
            (Some(on), PlatformType::HostA) if on == iid => on,
            _ => return Err(not_found("note", comment_id)),
        };
        let posted = Posted::Edit {
            id: comment_id.to_owned(),
            body: body.to_owned(),
        };
        self.record(&mut state, project, iid, posted)
    }

    async fn assign(
        &self,
        project: &ProjectRef,
        iid: i64,
        assignee_ids: &[String],
        reviewer_ids: &[String],
    ) -> Result<(), PlatformError> {
        let mut state = self.begin(Op::Assign)?;
        if assignee_ids.is_empty() && reviewer_ids.is_empty() {
            return Ok(());
        }
        // hostA takes numeric user ids (hostB takes logins).
        let not_numeric = assignee_ids
            .iter()
            .chain(reviewer_ids)
            .find(|id| id.parse::<i64>().is_err());
        if let (PlatformType::HostA, Some(id)) = (self.platform_type, not_numeric) {
            return Err(PlatformError::Rejected(format!("`{id}` is not a user id")));
        }
        self.mr(&state, project, iid)?;
        let posted = Posted::Assign {
            assignee_ids: assignee_ids.to_vec(),
            reviewer_ids: reviewer_ids.to_vec(),
        };
        self.record(&mut state, project, iid, posted)
    }

    async fn list_webhooks(
        &self,
        project: &ProjectRef,
    ) -> Result<Vec<PlatformWebhook>, PlatformError> {
        let state = self.begin(Op::ListWebhooks)?;
        Ok(self.project(&state, project)?.hooks.clone())
    }

    async fn create_webhook(
        &self,
        project: &ProjectRef,
        url: &str,
        _secret: Option<&str>,
    ) -> Result<PlatformWebhook, PlatformError> {
        let mut state = self.begin(Op::CreateWebhook)?;
        let index = self.project_index(&state, project)?;
        let hook = PlatformWebhook {
            id: state.next_id().to_string(),
            url: url.to_owned(),
        };
        state.projects[index].hooks.push(hook.clone());
        Ok(hook)
    }

    async fn delete_webhook(
        &self,
        project: &ProjectRef,
        hook_id: &str,
    ) -> Result<(), PlatformError> {
        let mut state = self.begin(Op::DeleteWebhook)?;
        let index = self.project_index(&state, project)?;
        let hooks = &mut state.projects[index].hooks;
        let before = hooks.len();
        hooks.retain(|h| h.id != hook_id);
        if hooks.len() == before {
            return Err(not_found("hook", hook_id));
        }
        Ok(())
    }

    async fn search_users(
        &self,
        search: Option<&str>,
        project: Option<&ProjectRef>,
        page: u32,
        per_page: u32,
    ) -> Result<PlatformPage<PlatformUser>, PlatformError> {
        let state = self.begin(Op::SearchUsers)?;
        if self.platform_type == PlatformType::HostB {
            return Err(PlatformError::Unsupported("hostB"));
        }
        let mut users: Vec<PlatformUser> = match project {
            Some(p) => self.project(&state, p)?.fixture.members.clone(),
            None => state
                .projects
                .iter()
                .flat_map(|p| p.fixture.members.iter().cloned())
                .collect(),
        };
        users.sort_by(|a, b| a.id.cmp(&b.id));
        users.dedup_by(|a, b| a.id == b.id);
        Ok(self.page(users, |_| true, |u| user_matches(u, search), page, per_page))
    }
}

#[cfg(test)]
mod tests;
