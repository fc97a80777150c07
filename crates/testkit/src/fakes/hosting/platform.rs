//! [`HostingPlatform`] over the scripted state, answering as the real adapter of the
//! platform type does.

use super::state::{contains, listed_state, not_found, rejected_position, user_matches};
use super::{Listed, MrFixture, Op, Posted, ScriptedPlatform};
use crate::repository::git_blob_id;
use async_trait::async_trait;
use reviewd_domain::model::conversation::CommentAuthor;
use reviewd_domain::model::diff::{
    CommentThread, DiffRefs, ExistingComment, FileDiff, InlineComment, MergeRequestDiff,
};
use reviewd_domain::model::gate::CommitGate;
use reviewd_domain::model::{
    MergeRequest, MrState, PlatformPage, PlatformProject, PlatformType, PlatformUser,
    PlatformWebhook, TokenIdentity,
};
use reviewd_domain::ports::{
    Archive, ArchiveLimits, ArchivedFile, HostingPlatform, PlatformError, ProjectRef, RepoTree,
    TreeEntry,
};
use reviewd_domain::review::markers::comment_fingerprint;
use reviewd_domain::review::standing::Standing;

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
        if self.platform_type == PlatformType::Github {
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
            PlatformType::Gitlab => mrs.sort_by_key(|m| std::cmp::Reverse(m.created_at)),
            PlatformType::Github => mrs.sort_by_key(|m| std::cmp::Reverse(m.updated_at)),
        }
        let searched = |m: &MrFixture| match self.platform_type {
            PlatformType::Gitlab => {
                contains(&m.title, search)
                    || contains(m.description.as_deref().unwrap_or(""), search)
            }
            PlatformType::Github => contains(&m.title, search),
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

    async fn read_file(
        &self,
        project: &ProjectRef,
        path: &str,
        sha: &str,
    ) -> Result<Option<Vec<u8>>, PlatformError> {
        let state = self.begin(Op::ReadFile)?;
        // The repository at a commit is what the MR with that head (or base) holds.
        Ok(files_at(self.project(&state, project)?, sha)
            .into_iter()
            .flatten()
            .find(|(p, _)| p == path)
            .map(|(_, content)| content.clone().into_bytes()))
    }

    async fn repository_tree(
        &self,
        project: &ProjectRef,
        sha: &str,
    ) -> Result<RepoTree, PlatformError> {
        let state = self.begin(Op::RepositoryTree)?;
        let files = files_at(self.project(&state, project)?, sha)
            .ok_or_else(|| not_found("commit", sha))?;
        Ok(RepoTree {
            entries: files
                .iter()
                .map(|(path, content)| TreeEntry {
                    path: path.clone(),
                    blob_id: git_blob_id(content.as_bytes()),
                    size: Some(content.len() as u64),
                })
                .collect(),
            truncated: false,
        })
    }

    async fn repository_blob(
        &self,
        project: &ProjectRef,
        blob_id: &str,
    ) -> Result<Vec<u8>, PlatformError> {
        let state = self.begin(Op::RepositoryBlob)?;
        self.project(&state, project)?
            .fixture
            .merge_requests
            .iter()
            .flat_map(|m| m.repo_files.iter().chain(&m.base_files))
            .find(|(_, content)| git_blob_id(content.as_bytes()) == blob_id)
            .map(|(_, content)| content.clone().into_bytes())
            .ok_or_else(|| not_found("blob", blob_id))
    }

    async fn repository_archive(
        &self,
        project: &ProjectRef,
        sha: &str,
        limits: ArchiveLimits,
    ) -> Result<Archive, PlatformError> {
        let state = self.begin(Op::RepositoryArchive)?;
        let files = files_at(self.project(&state, project)?, sha)
            .ok_or_else(|| not_found("commit", sha))?;
        let mut archive = Archive::default();
        let mut total = 0u64;
        for (path, content) in files {
            let size = content.len() as u64;
            archive.downloaded_bytes += size;
            if size > limits.max_file_bytes {
                continue;
            }
            if total + size > limits.max_total_bytes {
                archive.truncated = true;
                break;
            }
            total += size;
            archive.files.push(ArchivedFile {
                path: path.clone(),
                blob_id: git_blob_id(content.as_bytes()),
                bytes: content.clone().into_bytes(),
            });
        }
        Ok(archive)
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
        if self.platform_type == PlatformType::Github {
            // One review holds every comment: one bad position refuses them all.
            if let Some(bad) = comments
                .iter()
                .find(|c| !mr.takes_comment(self.platform_type, c))
            {
                return Err(rejected_position(bad));
            }
        }
        let project_id = self.project(&state, project)?.info.id.clone();
        let mut ids = Vec::with_capacity(comments.len());
        let cut = match self.platform_type {
            PlatformType::Gitlab => state.inline_cut.take(),
            PlatformType::Github => None,
        };
        for (n, comment) in comments.iter().enumerate() {
            if let Some((posted, error)) = &cut
                && n == *posted
            {
                return Err(error.clone());
            }
            if !mr.takes_comment(self.platform_type, comment) {
                return Err(rejected_position(comment));
            }
            let posted = Posted::Inline {
                comment: comment.clone(),
                head_sha: refs.head_sha.clone(),
            };
            self.record(&mut state, project, iid, posted)?;
            // hostA: a note in a discussion of its own; hostB: a comment in the review.
            let note_id = state.next_id();
            let thread_id = match self.platform_type {
                PlatformType::Gitlab => Some(format!("{note_id:040x}")),
                PlatformType::Github => None,
            };
            state.comments.push(Listed {
                project_id: project_id.clone(),
                iid,
                line: true,
                comment: ExistingComment {
                    id: note_id.to_string(),
                    thread_id: thread_id.clone(),
                    body: comment.body.clone(),
                },
                thread: CommentThread::default(),
            });
            ids.push(thread_id);
        }
        Ok(ids)
    }

    async fn list_comments(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<Vec<ExistingComment>, PlatformError> {
        let state = self.begin(Op::ListComments)?;
        self.mr(&state, project, iid)?;
        let project_id = &self.project(&state, project)?.info.id;
        Ok(state
            .comments
            .iter()
            .filter(|l| &l.project_id == project_id && l.iid == iid)
            .map(|l| l.comment.clone())
            .collect())
    }

    async fn comment_threads(
        &self,
        project: &ProjectRef,
        iid: i64,
    ) -> Result<Vec<CommentThread>, PlatformError> {
        let state = self.begin(Op::CommentThreads)?;
        self.mr(&state, project, iid)?;
        let project_id = &self.project(&state, project)?.info.id;
        Ok(state
            .comments
            .iter()
            .filter(|l| &l.project_id == project_id && l.iid == iid && l.line)
            .filter(|l| comment_fingerprint(&l.comment.body).is_some())
            .map(|l| CommentThread {
                body: l.comment.body.clone(),
                ..l.thread.clone()
            })
            .collect())
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
        let project_id = self.project(&state, project)?.info.id.clone();
        state.comments.push(Listed {
            project_id,
            iid,
            line: false,
            comment: ExistingComment {
                id: id.clone(),
                thread_id: None,
                body: body.to_owned(),
            },
            thread: CommentThread::default(),
        });
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
        // hostA edits any note of the MR, line notes too; hostB's route reaches the
        // repository's general (issue) comments by id, on whichever pull request.
        let platform_type = self.platform_type;
        let reached = |l: &Listed| match platform_type {
            PlatformType::Gitlab => l.iid == iid,
            PlatformType::Github => !l.line,
        };
        let Some(listed) = state
            .comments
            .iter_mut()
            .find(|l| l.project_id == project_id && l.comment.id == comment_id && reached(l))
        else {
            return Err(not_found("note", comment_id));
        };
        body.clone_into(&mut listed.comment.body);
        let iid = listed.iid;
        let posted = Posted::Edit {
            id: comment_id.to_owned(),
            body: body.to_owned(),
        };
        self.record(&mut state, project, iid, posted)
    }

    async fn standing(
        &self,
        project: &ProjectRef,
        author: &CommentAuthor,
    ) -> Result<Standing, PlatformError> {
        self.standing_of(project, author)
    }

    async fn reply_in_thread(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
        body: &str,
    ) -> Result<String, PlatformError> {
        self.reply_as_reviewd(project, iid, thread_id, body)
    }

    async fn resolve_thread(
        &self,
        project: &ProjectRef,
        iid: i64,
        thread_id: &str,
    ) -> Result<(), PlatformError> {
        self.resolve_in(project, iid, thread_id)
    }

    async fn set_commit_gate(
        &self,
        project: &ProjectRef,
        sha: &str,
        gate: &CommitGate,
    ) -> Result<(), PlatformError> {
        let mut state = self.begin(Op::SetCommitGate)?;
        let id = self.project(&state, project)?.info.id.clone();
        state.gates.push((id, sha.to_owned(), gate.clone()));
        Ok(())
    }

    async fn set_description(
        &self,
        project: &ProjectRef,
        iid: i64,
        description: &str,
    ) -> Result<(), PlatformError> {
        self.describe_as(project, iid, description)
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
        if let (PlatformType::Gitlab, Some(id)) = (self.platform_type, not_numeric) {
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
        if self.platform_type == PlatformType::Github {
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

/// The repository of `project` at `sha`: the files of the MR whose head (or base)
/// it is.
fn files_at<'a>(project: &'a super::Project, sha: &str) -> Option<&'a [(String, String)]> {
    project
        .fixture
        .merge_requests
        .iter()
        .find_map(|m| m.files_at(sha))
}
