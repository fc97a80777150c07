//! The [`HostingPlatform`] contract: what every platform adapter does, checked on the
//! in-memory [`ScriptedPlatform`] (both flavours, `tests/contract_memory.rs`) and on
//! the GitLab and GitHub adapters against the fake servers (their crates'
//! `tests/contract.rs`). Where the platforms differ (ids of line comments, the start
//! commit, user search), a case checks each by `platform_type`.

use crate::fakes::hosting::{
    MrFixture, Posted, ProjectFixture, ScriptedPlatform, added, binary, deleted, modified, renamed,
};
use async_trait::async_trait;
use reviewd_domain::model::diff::{FileDiff, InlineComment, Suggestion};
use reviewd_domain::model::{
    AuthType, MergeRequest, MrState, PlatformConnection, PlatformPage, PlatformType, PlatformUser,
    SecretString, TokenIdentity,
};
use reviewd_domain::ports::{ArchiveLimits, HostingPlatform, PlatformError, ProjectRef};
use std::collections::BTreeSet;
use std::sync::Arc;
use wiremock::MockServer;

/// A platform the contract can furnish and look into.
#[async_trait]
pub trait PlatformWorld: Sync {
    /// The platform through a token it knows.
    fn platform(&self) -> &dyn HostingPlatform;

    /// The same platform through a token it does not know.
    fn stranger(&self) -> Arc<dyn HostingPlatform>;

    /// Who the known token belongs to.
    fn token_owner(&self) -> TokenIdentity;

    /// Puts a project with its members and merge requests on the platform.
    async fn add_project(&self, project: &ProjectFixture) -> ProjectRef;

    /// What the platform answers for the files changed between two commits.
    async fn add_compare(&self, project: &ProjectRef, from: &str, to: &str, files: &[FileDiff]);

    /// What the platform accepted on a merge request, oldest first.
    async fn posted(&self, project: &ProjectRef, iid: i64) -> Vec<Posted>;
}

#[async_trait]
impl PlatformWorld for ScriptedPlatform {
    fn platform(&self) -> &dyn HostingPlatform {
        self
    }

    fn stranger(&self) -> Arc<dyn HostingPlatform> {
        Arc::new(self.with_bad_token())
    }

    fn token_owner(&self) -> TokenIdentity {
        self.identity()
    }

    async fn add_project(&self, project: &ProjectFixture) -> ProjectRef {
        ScriptedPlatform::add_project(self, project.clone())
    }

    async fn add_compare(&self, project: &ProjectRef, from: &str, to: &str, files: &[FileDiff]) {
        ScriptedPlatform::add_compare(self, project, from, to, files.to_vec());
    }

    async fn posted(&self, project: &ProjectRef, iid: i64) -> Vec<Posted> {
        ScriptedPlatform::posted(self, project, iid)
    }
}

/// A fake platform server (`FakeGitlab`, `FakeGithub`) an adapter is run against.
#[async_trait]
pub trait FakeServer: Send + Sync {
    fn account(&self) -> ServerAccount<'_>;

    /// Puts a project with its members and merge requests on the server.
    async fn add_project(&self, project: &ProjectFixture) -> ProjectRef;

    /// What the server answers for the files changed between two commits.
    async fn add_compare(&self, project: &ProjectRef, from: &str, to: &str, files: &[FileDiff]);

    /// What the server accepted on a merge request, oldest first.
    fn posted(&self, project: &ProjectRef, iid: i64) -> Vec<Posted>;
}

/// Where a fake server is, the token it knows and who that token belongs to.
pub struct ServerAccount<'a> {
    pub platform_type: PlatformType,
    /// Its URI is what a platform config holds as the base URL.
    pub server: &'a MockServer,
    pub token: &'a str,
    pub owner: TokenIdentity,
}

/// Builds an adapter for a connection.
type Connect = Box<dyn Fn(&PlatformConnection) -> Arc<dyn HostingPlatform> + Send + Sync>;

/// A platform adapter against a fake server: the world the adapters' crates run the
/// contract in.
pub struct ServerWorld<F> {
    fake: F,
    connect: Connect,
    platform: Arc<dyn HostingPlatform>,
}

impl<F: FakeServer> ServerWorld<F> {
    /// `connect` builds the adapter under test for a connection to `fake`.
    pub fn new(
        fake: F,
        connect: impl Fn(&PlatformConnection) -> Arc<dyn HostingPlatform> + Send + Sync + 'static,
    ) -> Self {
        let platform = connect(&connection(&fake, fake.account().token));
        Self {
            fake,
            connect: Box::new(connect),
            platform,
        }
    }
}

fn connection(fake: &impl FakeServer, token: &str) -> PlatformConnection {
    let account = fake.account();
    PlatformConnection {
        platform_type: account.platform_type,
        base_url: account.server.uri(),
        auth_type: AuthType::Token,
        token: SecretString::new(token),
        app: None,
    }
}

#[async_trait]
impl<F: FakeServer> PlatformWorld for ServerWorld<F> {
    fn platform(&self) -> &dyn HostingPlatform {
        self.platform.as_ref()
    }

    fn stranger(&self) -> Arc<dyn HostingPlatform> {
        let unknown = format!("{}-unknown", self.fake.account().token);
        (self.connect)(&connection(&self.fake, &unknown))
    }

    fn token_owner(&self) -> TokenIdentity {
        self.fake.account().owner
    }

    async fn add_project(&self, project: &ProjectFixture) -> ProjectRef {
        self.fake.add_project(project).await
    }

    async fn add_compare(&self, project: &ProjectRef, from: &str, to: &str, files: &[FileDiff]) {
        self.fake.add_compare(project, from, to, files).await;
    }

    async fn posted(&self, project: &ProjectRef, iid: i64) -> Vec<Posted> {
        self.fake.posted(project, iid)
    }
}

pub async fn run(world: &impl PlatformWorld) {
    token_identity_names_the_owner(world).await;
    an_unknown_token_is_unauthorized(world).await;
    projects_are_found_by_ref(world).await;
    members_are_listed_and_searched(world).await;
    merge_requests_come_in_pages_newest_first(world).await;
    merge_requests_are_filtered_by_state_and_title(world).await;
    a_merge_request_reads_as_fixed(world).await;
    the_diff_has_every_file_and_the_refs(world).await;
    compare_gives_the_files_between_commits(world).await;
    a_file_is_read_at_a_commit(world).await;
    a_repository_is_read_at_a_commit(world).await;
    line_comments_get_one_id_slot_each(world).await;
    a_line_outside_the_diff_is_rejected(world).await;
    a_suggestion_past_the_hunk_is_refused_by_github_only(world).await;
    comments_are_posted_and_edited(world).await;
    posted_comments_are_listed_back(world).await;
    comments_are_listed_across_pages(world).await;
    assignment_is_recorded(world).await;
    webhooks_are_created_listed_and_deleted(world).await;
    user_search_is_gitlab_only(world).await;
    reviewd_talks_in_its_threads(world).await;
}

/// `@@ -1,2 +1,3 @@`: line 2 is added, lines 1 and 3 are context.
const DIFF: &str = "@@ -1,2 +1,3 @@\n a\n+b\n c\n";

fn unknown_project() -> ProjectRef {
    ProjectRef {
        id: "987654".to_owned(),
        full_path: "contract/missing".to_owned(),
    }
}

fn comment(path: &str, line: u32, body: &str) -> InlineComment {
    InlineComment {
        file_path: path.to_owned(),
        old_path: None,
        line,
        body: body.to_owned(),
        suggestion: None,
    }
}

fn iids(mrs: &[MergeRequest]) -> Vec<i64> {
    mrs.iter().map(|m| m.iid).collect()
}

async fn token_identity_names_the_owner(world: &impl PlatformWorld) {
    let identity = world.platform().token_identity().await.unwrap();
    assert_eq!(identity, world.token_owner());
}

async fn an_unknown_token_is_unauthorized(world: &impl PlatformWorld) {
    let project = world
        .add_project(&ProjectFixture::new("contract/locked"))
        .await;
    let stranger = world.stranger();
    assert!(matches!(
        stranger.token_identity().await,
        Err(PlatformError::Unauthorized(_))
    ));
    assert!(matches!(
        stranger.get_project(&project).await,
        Err(PlatformError::Unauthorized(_))
    ));
}

async fn projects_are_found_by_ref(world: &impl PlatformWorld) {
    let platform = world.platform();
    let project = world
        .add_project(&ProjectFixture::new("contract/found"))
        .await;
    let found = platform.get_project(&project).await.unwrap();
    assert_eq!(
        (
            found.id.as_str(),
            found.full_path.as_str(),
            found.name.as_str()
        ),
        (project.id.as_str(), "contract/found", "found")
    );
    assert_eq!(found.default_branch.as_deref(), Some("main"));
    assert_eq!(found.platform_type, platform.platform_type());
    let listed = platform.list_projects().await.unwrap();
    assert!(listed.iter().any(|p| p.full_path == "contract/found"));
    assert!(matches!(
        platform.get_project(&unknown_project()).await,
        Err(PlatformError::NotFound(_))
    ));
}

async fn members_are_listed_and_searched(world: &impl PlatformWorld) {
    let platform = world.platform();
    let fixture = ProjectFixture::new("contract/members")
        .member(21, "alice")
        .member(22, "bob");
    let project = world.add_project(&fixture).await;
    let usernames = |page: PlatformPage<PlatformUser>| -> BTreeSet<String> {
        page.items.into_iter().map(|u| u.username).collect()
    };
    let all = platform.list_members(&project, None, 1, 20).await.unwrap();
    assert_eq!(
        usernames(all),
        BTreeSet::from(["alice".into(), "bob".into()])
    );
    let searched = platform
        .list_members(&project, Some("ALI"), 1, 20)
        .await
        .unwrap();
    assert_eq!(usernames(searched), BTreeSet::from(["alice".into()]));
    assert!(matches!(
        platform.list_members(&unknown_project(), None, 1, 20).await,
        Err(PlatformError::NotFound(_))
    ));
}

async fn merge_requests_come_in_pages_newest_first(world: &impl PlatformWorld) {
    let platform = world.platform();
    let fixture = ProjectFixture::new("contract/paged")
        .mr(MrFixture::new(1))
        .mr(MrFixture::new(2))
        .mr(MrFixture::new(3));
    let project = world.add_project(&fixture).await;
    let first = platform
        .list_merge_requests(&project, MrState::Opened, None, 1, 2)
        .await
        .unwrap();
    assert_eq!(iids(&first.items), [3, 2]);
    assert!(first.has_next);
    assert!(first.total.is_none_or(|t| t == 3), "{:?}", first.total);
    let second = platform
        .list_merge_requests(&project, MrState::Opened, None, 2, 2)
        .await
        .unwrap();
    assert_eq!(iids(&second.items), [1]);
    assert!(!second.has_next);
    assert_eq!((second.page, second.per_page), (2, 2));
    assert!(matches!(
        platform
            .list_merge_requests(&unknown_project(), MrState::All, None, 1, 20)
            .await,
        Err(PlatformError::NotFound(_))
    ));
}

async fn merge_requests_are_filtered_by_state_and_title(world: &impl PlatformWorld) {
    let platform = world.platform();
    let fixture = ProjectFixture::new("contract/filtered")
        .mr(MrFixture::new(1).title("Add parser"))
        .mr(MrFixture::new(2).state(MrState::Merged))
        .mr(MrFixture::new(3).state(MrState::Closed));
    let project = world.add_project(&fixture).await;
    let list = |state, search| platform.list_merge_requests(&project, state, search, 1, 20);
    assert_eq!(iids(&list(MrState::Opened, None).await.unwrap().items), [1]);
    let merged = list(MrState::Merged, None).await.unwrap().items;
    assert_eq!(iids(&merged), [2]);
    assert_eq!(merged[0].state, "merged");
    assert_eq!(iids(&list(MrState::Closed, None).await.unwrap().items), [3]);
    assert_eq!(
        iids(&list(MrState::All, None).await.unwrap().items),
        [3, 2, 1]
    );
    let searched = list(MrState::All, Some("parser")).await.unwrap();
    assert_eq!(iids(&searched.items), [1]);
}

async fn a_merge_request_reads_as_fixed(world: &impl PlatformWorld) {
    let platform = world.platform();
    let mr = MrFixture::new(7)
        .title("Read config")
        .description("Reads the config file")
        .branches("config", "develop")
        .author(31, "carol")
        .head("h7")
        .base("b7")
        .start("s7")
        .draft();
    let project = world
        .add_project(&ProjectFixture::new("contract/one-mr").mr(mr))
        .await;
    let got = platform.get_merge_request(&project, 7).await.unwrap();
    assert_eq!(
        (got.iid, got.title.as_str(), got.state.as_str()),
        (7, "Read config", "opened")
    );
    assert_eq!(got.description.as_deref(), Some("Reads the config file"));
    assert_eq!(
        (got.source_branch.as_str(), got.target_branch.as_str()),
        ("config", "develop")
    );
    assert_eq!(got.author_username.as_deref(), Some("carol"));
    assert_eq!(got.author_id.as_deref(), Some("31"));
    assert!(got.draft);
    assert_eq!(got.created_at, Some(MrFixture::new(7).created_at));
    let start = match platform.platform_type() {
        PlatformType::Gitlab => "s7",
        PlatformType::Github => "b7",
    };
    assert_eq!(
        (got.head_sha, got.base_sha, got.start_sha),
        (Some("h7".into()), Some("b7".into()), Some(start.into()))
    );
    assert!(matches!(
        platform.get_merge_request(&project, 8).await,
        Err(PlatformError::NotFound(_))
    ));
}

async fn the_diff_has_every_file_and_the_refs(world: &impl PlatformWorld) {
    let platform = world.platform();
    let mr = MrFixture::new(4)
        .file("src/lib.rs", DIFF)
        .change(added("src/new.rs", "@@ -0,0 +1 @@\n+x\n"))
        .change(renamed("src/old_name.rs", "src/new_name.rs", None))
        .change(deleted("src/gone.rs", "@@ -1 +0,0 @@\n-y\n"))
        .change(binary("logo.png"));
    let project = world
        .add_project(&ProjectFixture::new("contract/diff").mr(mr.clone()))
        .await;
    let diff = platform.merge_request_diff(&project, 4).await.unwrap();
    assert_eq!(diff.files, mr.files);
    assert_eq!(diff.refs, mr.refs(platform.platform_type()));
    assert!(matches!(
        platform.merge_request_diff(&project, 5).await,
        Err(PlatformError::NotFound(_))
    ));
}

async fn a_file_is_read_at_a_commit(world: &impl PlatformWorld) {
    let platform = world.platform();
    let text = "ignore: [\"docs/**\"]\n# é, and a line long enough to wrap when base64-encoded by the platform\n";
    let mr = MrFixture::new(6)
        .head("f11ef11ef11ef11ef11ef11ef11ef11ef11ef11e")
        .repo_file(".reviewd.yml", text)
        .repo_file("config/nested.yml", "a: 1\n");
    let project = world
        .add_project(&ProjectFixture::new("contract/files").mr(mr.clone()))
        .await;
    let read = |path: &'static str, sha: &'static str| platform.read_file(&project, path, sha);
    let head = "f11ef11ef11ef11ef11ef11ef11ef11ef11ef11e";
    assert_eq!(
        read(".reviewd.yml", head).await.unwrap(),
        Some(text.as_bytes().to_vec())
    );
    assert_eq!(
        read("config/nested.yml", head).await.unwrap(),
        Some(b"a: 1\n".to_vec()),
        "a path with a slash"
    );
    assert_eq!(read("missing.yml", head).await.unwrap(), None);
    assert_eq!(
        read(".reviewd.yml", "0000000000000000000000000000000000000000")
            .await
            .unwrap(),
        None,
        "not at another commit"
    );
}

/// The context's reads: a commit's tree (files only, with git blob ids), a blob
/// by its id, and the whole commit from one archive within limits; the base
/// commit is read as well as the head.
async fn a_repository_is_read_at_a_commit(world: &impl PlatformWorld) {
    let platform = world.platform();
    let head = "a11ea11ea11ea11ea11ea11ea11ea11ea11ea11e";
    let base = "b11eb11eb11eb11eb11eb11eb11eb11eb11eb11e";
    let users = "def find_user(user_id):\n    return None\n";
    let big = "x".repeat(4_000);
    let mr = MrFixture::new(16)
        .head(head)
        .base(base)
        .repo_file("app/users.py", users)
        .repo_file("app/orders.py", "from app.users import find_user\n")
        .repo_file("data/big.json", &big)
        .base_file("app/users.py", "def find_user(uid):\n    return None\n");
    let project = world
        .add_project(&ProjectFixture::new("contract/repository").mr(mr))
        .await;

    let tree = platform.repository_tree(&project, head).await.unwrap();
    let mut paths: Vec<&str> = tree.entries.iter().map(|e| e.path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        ["app/orders.py", "app/users.py", "data/big.json"],
        "files only, directories left out"
    );
    let entry = tree
        .entries
        .iter()
        .find(|e| e.path == "app/users.py")
        .unwrap();
    assert_eq!(
        entry.blob_id,
        crate::repository::git_blob_id(users.as_bytes())
    );
    assert_eq!(
        platform
            .repository_blob(&project, &entry.blob_id)
            .await
            .unwrap(),
        users.as_bytes()
    );

    let limits = ArchiveLimits {
        max_total_bytes: 1 << 20,
        max_file_bytes: 1_000,
        max_download_bytes: 1 << 20,
    };
    let archive = platform
        .repository_archive(&project, head, limits)
        .await
        .unwrap();
    let mut unpacked: Vec<(&str, &str)> = archive
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.blob_id.as_str()))
        .collect();
    unpacked.sort_unstable();
    let orders_id = crate::repository::git_blob_id(b"from app.users import find_user\n");
    assert_eq!(
        unpacked,
        [
            ("app/orders.py", orders_id.as_str()),
            ("app/users.py", entry.blob_id.as_str()),
        ],
        "the same ids as the tree's; the file over the limit is skipped"
    );
    assert!(!archive.truncated && archive.downloaded_bytes > 0);

    let at_base = platform
        .read_file(&project, "app/users.py", base)
        .await
        .unwrap();
    assert_eq!(
        at_base.as_deref(),
        Some(&b"def find_user(uid):\n    return None\n"[..])
    );
    assert!(matches!(
        platform
            .repository_tree(&project, "0000000000000000000000000000000000000000")
            .await,
        Err(PlatformError::NotFound(_))
    ));
}

async fn compare_gives_the_files_between_commits(world: &impl PlatformWorld) {
    let platform = world.platform();
    let project = world
        .add_project(&ProjectFixture::new("contract/compare"))
        .await;
    let files = [
        modified("src/lib.rs", DIFF),
        added("README.md", "@@ -0,0 +1 @@\n+hi\n"),
    ];
    world.add_compare(&project, "c1", "c2", &files).await;
    assert_eq!(platform.compare(&project, "c1", "c2").await.unwrap(), files);
    assert!(matches!(
        platform.compare(&project, "c1", "c404").await,
        Err(PlatformError::NotFound(_))
    ));
}

fn inline(posted: &[Posted]) -> Vec<(String, u32, String, String)> {
    posted
        .iter()
        .filter_map(|p| match p {
            Posted::Inline { comment, head_sha } => Some((
                comment.file_path.clone(),
                comment.line,
                comment.body.clone(),
                head_sha.clone(),
            )),
            _ => None,
        })
        .collect()
}

async fn line_comments_get_one_id_slot_each(world: &impl PlatformWorld) {
    let platform = world.platform();
    let mr = MrFixture::new(9)
        .file("src/a.rs", DIFF)
        .file("src/b.rs", DIFF);
    let project = world
        .add_project(&ProjectFixture::new("contract/inline").mr(mr.clone()))
        .await;
    let refs = mr.refs(platform.platform_type());
    let comments = [comment("src/a.rs", 2, "one"), comment("src/b.rs", 2, "two")];
    let ids = platform
        .post_inline_comments(&project, 9, &refs, &comments)
        .await
        .unwrap();
    assert_eq!(ids.len(), 2);
    match platform.platform_type() {
        PlatformType::Gitlab => {
            assert!(ids.iter().all(Option::is_some), "{ids:?}");
            assert_ne!(ids[0], ids[1]);
        }
        PlatformType::Github => assert_eq!(ids, [None, None]),
    }
    assert_eq!(
        inline(&world.posted(&project, 9).await),
        [
            ("src/a.rs".into(), 2, "one".into(), "head-9".into()),
            ("src/b.rs".into(), 2, "two".into(), "head-9".into()),
        ]
    );
    let none = platform
        .post_inline_comments(&project, 9, &refs, &[])
        .await
        .unwrap();
    assert!(none.is_empty());
}

async fn a_line_outside_the_diff_is_rejected(world: &impl PlatformWorld) {
    let platform = world.platform();
    let mr = MrFixture::new(10).file("src/a.rs", DIFF);
    let project = world
        .add_project(&ProjectFixture::new("contract/outside").mr(mr.clone()))
        .await;
    let refs = mr.refs(platform.platform_type());
    for outside in [
        comment("src/a.rs", 40, "far"),
        comment("src/zzz.rs", 2, "no file"),
    ] {
        let result = platform
            .post_inline_comments(&project, 10, &refs, &[outside])
            .await;
        assert!(
            matches!(result, Err(PlatformError::Rejected(_))),
            "{result:?}"
        );
    }
    assert!(inline(&world.posted(&project, 10).await).is_empty());
}

/// hostB anchors a suggestion's comment on the lines it replaces and refuses lines
/// outside the hunk; hostA takes the comment on its line whatever its block says
/// (and would apply it to lines the diff does not show): why the engine posts a
/// suggestion only where it fits.
async fn a_suggestion_past_the_hunk_is_refused_by_github_only(world: &impl PlatformWorld) {
    let platform = world.platform();
    let mr = MrFixture::new(11).file("src/a.rs", DIFF);
    let project = world
        .add_project(&ProjectFixture::new("contract/suggest").mr(mr.clone()))
        .await;
    let refs = mr.refs(platform.platform_type());
    let past = InlineComment {
        suggestion: Some(Suggestion {
            start_line: 2,
            end_line: 5,
            code: "b2".to_owned(),
        }),
        ..comment("src/a.rs", 2, "past the hunk")
    };
    let result = platform
        .post_inline_comments(&project, 11, &refs, &[past])
        .await;
    let posted = inline(&world.posted(&project, 11).await);
    match platform.platform_type() {
        PlatformType::Gitlab => {
            assert!(result.is_ok(), "{result:?}");
            assert_eq!(posted.len(), 1);
            assert_eq!(posted[0].1, 2, "on the comment's line");
        }
        PlatformType::Github => {
            assert!(
                matches!(result, Err(PlatformError::Rejected(_))),
                "{result:?}"
            );
            assert!(posted.is_empty());
        }
    }
    let within = InlineComment {
        suggestion: Some(Suggestion {
            start_line: 1,
            end_line: 3,
            code: "a\nb2\nc".to_owned(),
        }),
        ..comment("src/a.rs", 2, "within the hunk")
    };
    platform
        .post_inline_comments(&project, 11, &refs, &[within])
        .await
        .unwrap();
}

async fn comments_are_posted_and_edited(world: &impl PlatformWorld) {
    let platform = world.platform();
    let project = world
        .add_project(&ProjectFixture::new("contract/notes").mr(MrFixture::new(11)))
        .await;
    let id = platform
        .post_comment(&project, 11, "summary")
        .await
        .unwrap();
    platform
        .edit_comment(&project, 11, &id, "summary v2")
        .await
        .unwrap();
    assert_eq!(
        world.posted(&project, 11).await,
        [
            Posted::Comment {
                id: id.clone(),
                body: "summary".into()
            },
            Posted::Edit {
                id,
                body: "summary v2".into()
            },
        ]
    );
    assert!(matches!(
        platform.edit_comment(&project, 11, "5550555", "x").await,
        Err(PlatformError::NotFound(_))
    ));
    assert!(matches!(
        platform.post_comment(&project, 12, "x").await,
        Err(PlatformError::NotFound(_))
    ));
}

/// Text a comment body must survive unchanged: quotes, markup, escapes, non-ASCII.
const HOSTILE: &str =
    "«quotes» \"double\" 'single' </script><script>x()</script> \\n \u{1F680} 日本語 &amp; ${x}";

async fn posted_comments_are_listed_back(world: &impl PlatformWorld) {
    let platform = world.platform();
    let mr = MrFixture::new(15)
        .file("src/a.rs", DIFF)
        .file("src/b.rs", DIFF);
    let fixture = ProjectFixture::new("contract/listed")
        .mr(mr.clone())
        .mr(MrFixture::new(16));
    let project = world.add_project(&fixture).await;
    assert!(
        platform
            .list_comments(&project, 15)
            .await
            .unwrap()
            .is_empty()
    );
    let lines = [
        format!("{HOSTILE}\n<!-- reviewd:comment:abc -->"),
        "second\n<!-- reviewd:comment:def -->".to_owned(),
    ];
    let comments = [
        comment("src/a.rs", 2, &lines[0]),
        comment("src/b.rs", 2, &lines[1]),
    ];
    let refs = mr.refs(platform.platform_type());
    let threads = platform
        .post_inline_comments(&project, 15, &refs, &comments)
        .await
        .unwrap();
    let id = platform
        .post_comment(&project, 15, "summary <!-- reviewd:summary -->")
        .await
        .unwrap();
    let summary = format!("summary v2 {HOSTILE} <!-- reviewd:summary -->");
    platform
        .edit_comment(&project, 15, &id, &summary)
        .await
        .unwrap();

    let listed = platform.list_comments(&project, 15).await.unwrap();
    let bodies: Vec<&str> = listed.iter().map(|c| c.body.as_str()).collect();
    assert_eq!(
        bodies,
        [lines[0].as_str(), lines[1].as_str(), summary.as_str()]
    );
    assert_eq!(
        (listed[2].id.as_str(), &listed[2].thread_id),
        (id.as_str(), &None)
    );
    let listed_threads: Vec<Option<String>> =
        listed[..2].iter().map(|c| c.thread_id.clone()).collect();
    assert_eq!(listed_threads, threads);
    let gitlab = platform.platform_type() == PlatformType::Gitlab;
    assert_eq!(threads.iter().all(Option::is_some), gitlab, "{threads:?}");
    let ids: BTreeSet<&str> = listed.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), 3, "{listed:?}");
    if gitlab {
        // A line note is a note like any other: edited by the id listed for it.
        platform
            .edit_comment(&project, 15, &listed[0].id, "moved on")
            .await
            .unwrap();
        let relisted = platform.list_comments(&project, 15).await.unwrap();
        assert_eq!(relisted[0].body, "moved on");
        assert_eq!(relisted[1..], listed[1..]);
    }

    assert!(
        platform
            .list_comments(&project, 16)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(matches!(
        platform.list_comments(&project, 17).await,
        Err(PlatformError::NotFound(_))
    ));
    assert!(matches!(
        platform.list_comments(&unknown_project(), 15).await,
        Err(PlatformError::NotFound(_))
    ));
}

/// More comments than the adapters read in a page (100): every one comes back, once,
/// in order.
async fn comments_are_listed_across_pages(world: &impl PlatformWorld) {
    let platform = world.platform();
    let project = world
        .add_project(&ProjectFixture::new("contract/many-notes").mr(MrFixture::new(18)))
        .await;
    let mut ids = Vec::new();
    for n in 0..105 {
        let body = format!("note {n}");
        ids.push(platform.post_comment(&project, 18, &body).await.unwrap());
    }
    let listed = platform.list_comments(&project, 18).await.unwrap();
    let listed_ids: Vec<&str> = listed.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(listed_ids, ids);
    assert_eq!(listed[104].body, "note 104");
}

/// Both adapters assign (hostB by login, which hostB projects store as ids).
async fn assignment_is_recorded(world: &impl PlatformWorld) {
    let platform = world.platform();
    let project = world
        .add_project(&ProjectFixture::new("contract/assign").mr(MrFixture::new(13)))
        .await;
    platform
        .assign(&project, 13, &["3".into()], &["12".into(), "13".into()])
        .await
        .unwrap();
    let (mut assignees, mut reviewers) = (Vec::new(), Vec::new());
    for posted in world.posted(&project, 13).await {
        if let Posted::Assign {
            assignee_ids,
            reviewer_ids,
        } = posted
        {
            assignees.extend(assignee_ids);
            reviewers.extend(reviewer_ids);
        }
    }
    assert_eq!(
        (assignees, reviewers),
        (vec!["3".to_owned()], vec!["12".to_owned(), "13".to_owned()])
    );
    assert!(matches!(
        platform.assign(&project, 14, &["3".into()], &[]).await,
        Err(PlatformError::NotFound(_))
    ));
}

async fn webhooks_are_created_listed_and_deleted(world: &impl PlatformWorld) {
    let platform = world.platform();
    let project = world
        .add_project(&ProjectFixture::new("contract/hooks"))
        .await;
    assert!(platform.list_webhooks(&project).await.unwrap().is_empty());
    let url = "https://reviewd.example.com/api/webhook/contract";
    let hook = platform
        .create_webhook(&project, url, Some("s3cret"))
        .await
        .unwrap();
    assert_eq!(hook.url, url);
    assert_eq!(
        platform.list_webhooks(&project).await.unwrap(),
        std::slice::from_ref(&hook)
    );
    platform.delete_webhook(&project, &hook.id).await.unwrap();
    assert!(platform.list_webhooks(&project).await.unwrap().is_empty());
    assert!(matches!(
        platform.delete_webhook(&project, &hook.id).await,
        Err(PlatformError::NotFound(_))
    ));
    assert!(matches!(
        platform.list_webhooks(&unknown_project()).await,
        Err(PlatformError::NotFound(_))
    ));
}

async fn user_search_is_gitlab_only(world: &impl PlatformWorld) {
    let platform = world.platform();
    let fixture = ProjectFixture::new("contract/users")
        .member(41, "dora")
        .member(42, "eve");
    let project = world.add_project(&fixture).await;
    let result = platform
        .search_users(Some("dor"), Some(&project), 1, 20)
        .await;
    if platform.platform_type() == PlatformType::Github {
        assert_eq!(result, Err(PlatformError::Unsupported("hostB")));
        return;
    }
    let names: Vec<_> = result
        .unwrap()
        .items
        .into_iter()
        .map(|u| u.username)
        .collect();
    assert_eq!(names, ["dora"]);
    let everyone = platform
        .search_users(Some("eve"), None, 1, 20)
        .await
        .unwrap();
    assert!(everyone.items.iter().any(|u| u.id == "42"));
}

/// Who may talk to reviewd, its replies in its own threads, resolving one, and the
/// description `describe` writes.
async fn reviewd_talks_in_its_threads(world: &impl PlatformWorld) {
    use reviewd_domain::model::conversation::CommentAuthor;
    use reviewd_domain::review::markers::comment_marker;
    use reviewd_domain::review::standing::Standing;

    let platform = world.platform();
    let mr = MrFixture::new(31).file("src/a.rs", DIFF);
    let project = world
        .add_project(
            &ProjectFixture::new("contract/talk")
                .member(4101, "dev-ana")
                .mr(mr.clone()),
        )
        .await;
    let person = |id: &str, username: &str| CommentAuthor {
        id: Some(id.to_owned()),
        username: username.to_owned(),
        is_bot: false,
    };
    assert_eq!(
        platform
            .standing(&project, &person("4101", "dev-ana"))
            .await
            .unwrap(),
        Standing::Developer
    );
    assert_eq!(
        platform
            .standing(&project, &person("4999", "passer-by"))
            .await
            .unwrap(),
        Standing::Outsider
    );

    let body = format!("**error**: b\n\n{}", comment_marker("fp-talk"));
    let refs = mr.refs(platform.platform_type());
    let ids = platform
        .post_inline_comments(&project, 31, &refs, &[comment("src/a.rs", 2, &body)])
        .await
        .unwrap();
    let listed = platform.list_comments(&project, 31).await.unwrap();
    let root = listed.iter().find(|c| c.body == body).unwrap();
    // hostA: the discussion's id; hostB: the thread's first comment's.
    let thread = ids[0].clone().unwrap_or_else(|| root.id.clone());
    let reply = platform
        .reply_in_thread(&project, 31, &thread, "The answer.")
        .await
        .unwrap();
    platform
        .resolve_thread(&project, 31, &thread)
        .await
        .unwrap();
    let threads = platform.comment_threads(&project, 31).await.unwrap();
    assert_eq!(threads.len(), 1, "{threads:?}");
    assert!(
        threads[0]
            .replies
            .iter()
            .any(|r| r.id == reply && r.body == "The answer."),
        "{threads:?}"
    );
    assert!(threads[0].resolved.is_some(), "the thread is resolved");
    assert!(
        platform
            .list_comments(&project, 31)
            .await
            .unwrap()
            .iter()
            .any(|c| c.id == reply),
        "a reply is listed with the MR's comments"
    );
    assert!(matches!(
        platform.reply_in_thread(&project, 31, "424242", "x").await,
        Err(PlatformError::NotFound(_))
    ));

    platform
        .set_description(&project, 31, "Author text.\n\nreviewd's section")
        .await
        .unwrap();
    assert!(
        world
            .posted(&project, 31)
            .await
            .contains(&Posted::Description {
                body: "Author text.\n\nreviewd's section".into()
            })
    );
}
