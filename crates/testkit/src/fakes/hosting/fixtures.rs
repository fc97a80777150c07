//! Projects and merge requests to put on a platform (the [`super::ScriptedPlatform`]
//! or the fake servers), built in a line or two: `MrFixture::new(7).head("h2")
//! .file("src/a.rs", "@@ -1 +1,2 @@\n a\n+b\n")`.

use chrono::{DateTime, Duration, TimeZone, Utc};
use reviewd_domain::model::diff::{ChangeType, DiffRefs, FileDiff, InlineComment};
use reviewd_domain::model::{MergeRequest, MrState, PlatformType, PlatformUser};
use reviewd_domain::review::diff_lines::{DiffLines, Placement};

/// A project with its members and merge requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFixture {
    pub full_path: String,
    pub default_branch: String,
    pub members: Vec<PlatformUser>,
    pub merge_requests: Vec<MrFixture>,
}

impl ProjectFixture {
    /// `full_path` is `group/name` (hostB needs exactly `owner/name`).
    #[must_use]
    pub fn new(full_path: &str) -> Self {
        Self {
            full_path: full_path.to_owned(),
            default_branch: "main".to_owned(),
            members: Vec::new(),
            merge_requests: Vec::new(),
        }
    }

    /// The last segment of the path.
    #[must_use]
    pub fn name(&self) -> &str {
        self.full_path.rsplit('/').next().unwrap_or(&self.full_path)
    }

    #[must_use]
    pub fn member(mut self, id: u64, username: &str) -> Self {
        self.members.push(platform_user(id, username));
        self
    }

    #[must_use]
    pub fn mr(mut self, mr: MrFixture) -> Self {
        self.merge_requests.push(mr);
        self
    }
}

/// A user as both platforms describe one (the name is the username, as hostB's
/// listings have no names).
#[must_use]
pub fn platform_user(id: u64, username: &str) -> PlatformUser {
    PlatformUser {
        id: id.to_string(),
        username: username.to_owned(),
        name: username.to_owned(),
        avatar_url: format!("https://avatars.example.com/{id}"),
        state: "active".to_owned(),
        web_url: format!("https://users.example.com/{username}"),
    }
}

/// A merge request and its diff. Defaults: opened, `feature-<iid>` into `main`,
/// SHAs `head-<iid>`/`base-<iid>`/`start-<iid>`, created and updated `<iid>` minutes
/// into 2026 (so a higher iid is newer), no files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MrFixture {
    pub iid: i64,
    pub title: String,
    pub description: Option<String>,
    pub state: MrState,
    pub source_branch: String,
    pub target_branch: String,
    pub author: PlatformUser,
    pub head_sha: String,
    pub base_sha: String,
    pub start_sha: String,
    pub draft: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub files: Vec<FileDiff>,
    /// Files of the repository at the MR's head (`.reviewd.yml`, the code the
    /// context reads), by path.
    pub repo_files: Vec<(String, String)>,
    /// Files of the repository at the MR's base.
    pub base_files: Vec<(String, String)>,
}

impl MrFixture {
    #[must_use]
    pub fn new(iid: i64) -> Self {
        let at = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + Duration::minutes(iid);
        Self {
            iid,
            title: format!("MR {iid}"),
            description: None,
            state: MrState::Opened,
            source_branch: format!("feature-{iid}"),
            target_branch: "main".to_owned(),
            author: platform_user(3, "dev"),
            head_sha: format!("head-{iid}"),
            base_sha: format!("base-{iid}"),
            start_sha: format!("start-{iid}"),
            draft: false,
            created_at: at,
            updated_at: at,
            files: Vec::new(),
            repo_files: Vec::new(),
            base_files: Vec::new(),
        }
    }

    /// A file of the repository at the MR's head, as `read_file` serves it.
    #[must_use]
    pub fn repo_file(mut self, path: &str, content: &str) -> Self {
        self.repo_files.push((path.to_owned(), content.to_owned()));
        self
    }

    /// A file of the repository at the MR's base.
    #[must_use]
    pub fn base_file(mut self, path: &str, content: &str) -> Self {
        self.base_files.push((path.to_owned(), content.to_owned()));
        self
    }

    /// The repository at `sha`, when it is this MR's head or base.
    #[must_use]
    pub fn files_at(&self, sha: &str) -> Option<&[(String, String)]> {
        if sha == self.head_sha {
            Some(&self.repo_files)
        } else if sha == self.base_sha {
            Some(&self.base_files)
        } else {
            None
        }
    }

    #[must_use]
    pub fn title(mut self, title: &str) -> Self {
        title.clone_into(&mut self.title);
        self
    }

    #[must_use]
    pub fn description(mut self, description: &str) -> Self {
        self.description = Some(description.to_owned());
        self
    }

    /// `Merged` or `Closed` (`All` is a filter, not a state).
    #[must_use]
    pub fn state(mut self, state: MrState) -> Self {
        self.state = state;
        self
    }

    #[must_use]
    pub fn branches(mut self, source: &str, target: &str) -> Self {
        source.clone_into(&mut self.source_branch);
        target.clone_into(&mut self.target_branch);
        self
    }

    #[must_use]
    pub fn author(mut self, id: u64, username: &str) -> Self {
        self.author = platform_user(id, username);
        self
    }

    #[must_use]
    pub fn head(mut self, sha: &str) -> Self {
        sha.clone_into(&mut self.head_sha);
        self
    }

    #[must_use]
    pub fn base(mut self, sha: &str) -> Self {
        sha.clone_into(&mut self.base_sha);
        self
    }

    /// The target branch's commit the diff starts from (hostA's `start_sha`).
    #[must_use]
    pub fn start(mut self, sha: &str) -> Self {
        sha.clone_into(&mut self.start_sha);
        self
    }

    #[must_use]
    pub fn draft(mut self) -> Self {
        self.draft = true;
        self
    }

    #[must_use]
    pub fn updated_at(mut self, at: DateTime<Utc>) -> Self {
        self.updated_at = at;
        self
    }

    /// A modified file with its unified diff.
    #[must_use]
    pub fn file(self, path: &str, diff: &str) -> Self {
        self.change(modified(path, diff))
    }

    /// Any changed file (see [`added`], [`renamed`], [`deleted`], [`binary`]).
    #[must_use]
    pub fn change(mut self, file: FileDiff) -> Self {
        self.files.push(file);
        self
    }

    /// The SHAs as the platform reports them: hostB has no start commit and reports
    /// the base for it.
    #[must_use]
    pub fn refs(&self, platform_type: PlatformType) -> DiffRefs {
        DiffRefs {
            base_sha: self.base_sha.clone(),
            start_sha: match platform_type {
                PlatformType::Gitlab => self.start_sha.clone(),
                PlatformType::Github => self.base_sha.clone(),
            },
            head_sha: self.head_sha.clone(),
        }
    }

    /// Whether the platform takes a line comment there, as the real ones: hostA only
    /// on added lines (any other needs the old line number, which we never send),
    /// hostB anywhere in a hunk. A hostB comment with a suggestion spans the
    /// suggestion's lines, which must then all be in the comment's hunk (hostA
    /// checks a suggestion's lines only when it is applied).
    #[must_use]
    pub fn takes_comment(&self, platform_type: PlatformType, comment: &InlineComment) -> bool {
        let Some(lines) = self.diff_lines(&comment.file_path) else {
            return false;
        };
        let on_a_line = match lines.place(comment.line) {
            Placement::Exact(_) => true,
            Placement::Nearest(_) => platform_type == PlatformType::Github,
            Placement::Outside => false,
        };
        on_a_line
            && match (&comment.suggestion, platform_type) {
                (Some(s), PlatformType::Github) => self.takes_range(
                    &comment.file_path,
                    s.start_line.min(comment.line),
                    s.end_line.max(comment.line),
                ),
                _ => true,
            }
    }

    /// Whether hostB takes a comment on new-side lines `start..=end` of `path`: both
    /// ends in one hunk of the diff.
    #[must_use]
    pub fn takes_range(&self, path: &str, start: u32, end: u32) -> bool {
        self.diff_lines(path)
            .is_some_and(|lines| lines.shows_in_one_hunk(start, end))
    }

    fn diff_lines(&self, path: &str) -> Option<DiffLines> {
        self.files
            .iter()
            .find(|f| f.new_path == path)
            .and_then(|f| f.diff.as_deref())
            .map(DiffLines::parse)
    }

    /// What an adapter of `platform_type` reads for this MR.
    #[must_use]
    pub fn to_merge_request(&self, platform_type: PlatformType, web_url: String) -> MergeRequest {
        let refs = self.refs(platform_type);
        MergeRequest {
            iid: self.iid,
            title: self.title.clone(),
            description: self.description.clone(),
            state: self.state.as_str().to_owned(),
            web_url,
            source_branch: self.source_branch.clone(),
            target_branch: self.target_branch.clone(),
            author_id: Some(self.author.id.clone()),
            author_username: Some(self.author.username.clone()),
            head_sha: Some(refs.head_sha),
            base_sha: Some(refs.base_sha),
            start_sha: Some(refs.start_sha),
            draft: self.draft,
            created_at: Some(self.created_at),
            updated_at: Some(self.updated_at),
        }
    }
}

fn file_diff(
    new_path: &str,
    old_path: Option<&str>,
    change_type: ChangeType,
    diff: Option<&str>,
) -> FileDiff {
    FileDiff {
        new_path: new_path.to_owned(),
        old_path: old_path.map(str::to_owned),
        change_type,
        diff: diff.map(str::to_owned),
    }
}

#[must_use]
pub fn modified(path: &str, diff: &str) -> FileDiff {
    file_diff(path, None, ChangeType::Modified, Some(diff))
}

#[must_use]
pub fn added(path: &str, diff: &str) -> FileDiff {
    file_diff(path, None, ChangeType::New, Some(diff))
}

#[must_use]
pub fn deleted(path: &str, diff: &str) -> FileDiff {
    file_diff(path, None, ChangeType::Deleted, Some(diff))
}

/// A moved file, with the diff of its content (`None` for a pure rename).
#[must_use]
pub fn renamed(old_path: &str, new_path: &str, diff: Option<&str>) -> FileDiff {
    file_diff(new_path, Some(old_path), ChangeType::Renamed, diff)
}

/// A changed file the platform sends without a patch.
#[must_use]
pub fn binary(path: &str) -> FileDiff {
    file_diff(path, None, ChangeType::Modified, None)
}
