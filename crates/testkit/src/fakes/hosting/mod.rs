//! A hosting platform in memory: [`ScriptedPlatform`] holds projects, members, merge
//! requests with their diffs, compares and webhooks, records everything posted (and
//! lists the comments back, edits applied), and fails on demand; [`ScriptedClients`] hands it out for any connection and
//! [`FakeOAuth`] stands in for the OAuth2 flow. It answers as the real adapters do
//! for its `platform_type` (hostB: no user search, no start commit, pages filtered
//! after the fact), which `contract::hosting` checks against both.

mod fixtures;
mod oauth;
mod platform;
mod state;
mod talk;

pub use fixtures::{
    MrFixture, ProjectFixture, added, binary, deleted, modified, platform_user, renamed,
};
pub use oauth::{FakeOAuth, ScriptedClients};

use reviewd_domain::model::diff::{
    CommentThread, ExistingComment, FileDiff, InlineComment, Resolution, ThreadReaction,
    ThreadReply,
};
use reviewd_domain::model::gate::{CommitGate, GateState};
use reviewd_domain::model::{PlatformProject, PlatformType, PlatformWebhook, TokenIdentity};
use reviewd_domain::ports::{PlatformError, ProjectRef};
use reviewd_domain::review::standing::Standing;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// The operations of [`HostingPlatform`](reviewd_domain::ports::HostingPlatform), to inject
/// failures into and count calls of.
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
    ReadFile,
    RepositoryTree,
    RepositoryBlob,
    RepositoryArchive,
    PostInline,
    ListComments,
    CommentThreads,
    PostComment,
    EditComment,
    Assign,
    ListWebhooks,
    CreateWebhook,
    DeleteWebhook,
    SearchUsers,
    Standing,
    ReplyInThread,
    ResolveThread,
    SetDescription,
    SetCommitGate,
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
    /// A reply in a thread (a line comment's), as reviewd's account.
    Reply {
        thread_id: String,
        id: String,
        body: String,
    },
    /// The MR's description replaced.
    Description {
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

/// A comment as `list_comments` gives it back (edits applied), and where it is.
struct Listed {
    project_id: String,
    iid: i64,
    /// A line comment, which hostB's edit route does not reach.
    line: bool,
    comment: ExistingComment,
    /// What readers did to it: reactions, replies, resolution (body left empty:
    /// the comment's is current).
    thread: CommentThread,
}

struct State {
    identity: TokenIdentity,
    projects: Vec<Project>,
    posts: Vec<Post>,
    /// Every comment posted, oldest first, with the ids the posts answered.
    comments: Vec<Listed>,
    failures: HashMap<Op, VecDeque<PlatformError>>,
    /// The next line-comment post stops with this error after this many comments.
    inline_cut: Option<(usize, PlatformError)>,
    calls: Vec<Op>,
    last_id: u64,
    /// People's standing on every project, by username (others are outsiders).
    standings: HashMap<String, Standing>,
    /// Every merge gate posted, oldest first: (project id, commit, gate).
    gates: Vec<(String, String, CommitGate)>,
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
            PlatformType::Gitlab => vec!["api".to_owned()],
            PlatformType::Github => vec!["repo".to_owned(), "admin:repo_hook".to_owned()],
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
                comments: Vec::new(),
                failures: HashMap::new(),
                inline_cut: None,
                calls: Vec::new(),
                last_id: 1000,
                standings: HashMap::new(),
                gates: Vec::new(),
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

    /// The next [`HostingPlatform::post_inline_comments`] on hostA posts `posted`
    /// comments, then fails with `error`, as an outage in the middle of a batch of
    /// discussions does (hostB posts a review whole or not at all, so this is hostA's).
    pub fn cut_next_inline(&self, posted: usize, error: PlatformError) {
        self.lock().inline_cut = Some((posted, error));
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

    /// `user` reacts to the line comment whose text carries `fingerprint`'s
    /// marker (the latest such comment); whether there was one.
    pub fn react(&self, fingerprint: &str, name: &str, user: &str) -> bool {
        self.on_thread(fingerprint, |t| {
            t.reactions
                .retain(|r| !(r.name == name && r.username == user));
            t.reactions.push(ThreadReaction {
                name: name.to_owned(),
                username: user.to_owned(),
            });
        })
    }

    /// `user` takes their reaction `name` back.
    pub fn unreact(&self, fingerprint: &str, name: &str, user: &str) -> bool {
        self.on_thread(fingerprint, |t| {
            t.reactions
                .retain(|r| !(r.name == name && r.username == user));
        })
    }

    /// `user` replies `body` in the comment's thread.
    pub fn reply(&self, fingerprint: &str, body: &str, user: &str) -> bool {
        let id = self.lock().next_id();
        self.on_thread(fingerprint, |t| {
            t.replies.push(ThreadReply {
                id: id.to_string(),
                body: body.to_owned(),
                username: user.to_owned(),
            });
        })
    }

    /// Resolves the comment's thread (`Some(user)`) or reopens it (`None`).
    pub fn resolve(&self, fingerprint: &str, by: Option<&str>) -> bool {
        self.on_thread(fingerprint, |t| {
            t.resolved = by.map(|u| Resolution {
                username: Some(u.to_owned()),
            });
        })
    }

    fn on_thread(&self, fingerprint: &str, change: impl FnOnce(&mut CommentThread)) -> bool {
        let marker = reviewd_domain::review::markers::comment_marker(fingerprint);
        let mut state = self.lock();
        match state
            .comments
            .iter_mut()
            .rev()
            .find(|l| l.line && l.comment.body.contains(&marker))
        {
            Some(listed) => {
                change(&mut listed.thread);
                true
            }
            None => false,
        }
    }

    /// Gives `username` this standing on every project (no call of this makes an
    /// outsider of anyone but a user unknown to it).
    pub fn grant(&self, username: &str, standing: Standing) {
        self.lock().standings.insert(username.to_owned(), standing);
    }

    /// A person (not reviewd) replies in the thread whose id is `thread_id` (hostA
    /// discussion id, hostB first comment id); returns the reply's id.
    pub fn reply_in(&self, thread_id: &str, body: &str, user: &str) -> Option<String> {
        let mut state = self.lock();
        let id = state.next_id().to_string();
        let listed = state.comments.iter_mut().find(|l| {
            l.line
                && (l.comment.thread_id.as_deref() == Some(thread_id) || l.comment.id == thread_id)
        })?;
        listed.thread.replies.push(ThreadReply {
            id: id.clone(),
            body: body.to_owned(),
            username: user.to_owned(),
        });
        Some(id)
    }

    /// The thread whose id is `thread_id`, with its replies and resolution.
    #[must_use]
    pub fn thread(&self, thread_id: &str) -> Option<CommentThread> {
        let state = self.lock();
        state
            .comments
            .iter()
            .find(|l| {
                l.line
                    && (l.comment.thread_id.as_deref() == Some(thread_id)
                        || l.comment.id == thread_id)
            })
            .map(|l| CommentThread {
                body: l.comment.body.clone(),
                ..l.thread.clone()
            })
    }

    /// Every call made, failed ones included, in order.
    #[must_use]
    /// The states of the merge gate posted for `sha`, oldest first.
    pub fn gates(&self, sha: &str) -> Vec<GateState> {
        self.lock()
            .gates
            .iter()
            .filter(|(_, s, _)| s == sha)
            .map(|(_, _, g)| g.state)
            .collect()
    }

    /// The last gate posted for `sha`.
    pub fn last_gate(&self, sha: &str) -> Option<CommitGate> {
        self.lock()
            .gates
            .iter()
            .rev()
            .find(|(_, s, _)| s == sha)
            .map(|(_, _, g)| g.clone())
    }

    pub fn calls(&self) -> Vec<Op> {
        self.lock().calls.clone()
    }
}

#[cfg(test)]
mod tests;
