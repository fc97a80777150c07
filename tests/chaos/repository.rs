//! A real git repository for the runner scenarios: a bare clone source whose
//! commits are the MRs' own, so a `reviewd-runner` fetches them and computes the
//! same diff the fake GitLab shows (line 2 added to each of an MR's files).

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Repository {
    /// What the project's `web_url` is set to: the runner clones from here.
    pub url: String,
    /// The commit every MR starts from (its `base_sha` and `start_sha`).
    pub base: String,
    /// The head commit of MR `iid`, at index `iid - 1`.
    pub heads: Vec<String>,
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "dev")
        .env("GIT_AUTHOR_EMAIL", "dev@example.com")
        .env("GIT_COMMITTER_NAME", "dev")
        .env("GIT_COMMITTER_EMAIL", "dev@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn write(root: &Path, path: &str, text: &str) {
    let file = root.join(path);
    std::fs::create_dir_all(file.parent().expect("a file in a folder")).expect("mkdir");
    std::fs::write(file, text).expect("a source file");
}

impl Repository {
    /// Builds it in `dir`: one base commit holding every MR's files, then one branch
    /// per MR that adds `let x = foo().unwrap();` as line 2 of each of its files.
    pub fn create(dir: &Path, mrs: i64, files: &[Vec<String>]) -> Repository {
        let work = dir.join("repository-work");
        std::fs::create_dir_all(&work).expect("the work tree");
        git(&work, &["init", "--quiet", "--initial-branch=main"]);
        for path in files.iter().flatten() {
            write(&work, path, "fn main() {\n    run();\n}\n");
        }
        git(&work, &["add", "."]);
        git(&work, &["commit", "--quiet", "-m", "base"]);
        let base = git(&work, &["rev-parse", "HEAD"]);
        let mut heads = Vec::new();
        for iid in 1..=mrs {
            let branch = format!("mr{iid}");
            git(&work, &["checkout", "--quiet", "-b", &branch, &base]);
            let index = usize::try_from(iid - 1).expect("iids start at 1");
            for path in &files[index] {
                write(
                    &work,
                    path,
                    "fn main() {\n    let x = foo().unwrap();\n    run();\n}\n",
                );
            }
            git(&work, &["commit", "--quiet", "-am", &format!("MR {iid}")]);
            heads.push(git(&work, &["rev-parse", "HEAD"]));
        }
        let bare: PathBuf = dir.join("svc.git");
        let (work_path, bare_path) = (
            work.to_str().expect("a UTF-8 path"),
            bare.to_str().expect("a UTF-8 path"),
        );
        git(dir, &["clone", "--quiet", "--bare", work_path, bare_path]);
        Repository {
            url: format!("file://{bare_path}"),
            base,
            heads,
        }
    }
}
