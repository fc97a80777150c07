//! The reviewer's context on the in-memory code source and the toy parser: what a
//! file's prompt carries beyond its diff, asked of the pieces as data ("did the
//! definition of X make it in, and why"), within the budget, without secrets,
//! with each read counted and cached.

#![expect(
    clippy::expect_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod budget;
mod gathering;
mod limits;

use reviewd_domain::context::{
    self, CodeReader, ContextCaches, ContextMode, ContextSettings, PieceKind, RoundContext,
    RoundRequest,
};
use reviewd_domain::model::diff::{ChangeType, FileDiff};
use reviewd_domain::ports::PlatformError;
use reviewd_testkit::fakes::code::{MemoryCode, ToySyntax};
use std::sync::Arc;

const USERS: &str = "\
fn find_user(id) {
    row = db_get(id)
    if row == nil {
        return nil
    }
    return row
}
";

/// `orders.toy` at base: `total` takes a lock forty lines up from its end.
fn orders(body_line: &str) -> String {
    let mut text = String::from("fn total(order_id) {\n    lock(order_id)\n");
    for i in 0..40 {
        text.push_str(&format!("    step_{i} = {i}\n"));
    }
    text.push_str(body_line);
    text.push_str("    unlock(order_id)\n}\n");
    text
}

fn diff(base: &str, head: &str) -> String {
    // The one changed line, with three lines of context, as the platforms show it.
    let old: Vec<&str> = base.lines().collect();
    let new: Vec<&str> = head.lines().collect();
    let at = old
        .iter()
        .zip(&new)
        .position(|(a, b)| a != b)
        .expect("a changed line");
    let from = at.saturating_sub(3);
    let mut out = format!(
        "@@ -{},{} +{},{} @@\n",
        from + 1,
        (at + 4).min(old.len()) - from,
        from + 1,
        (at + 4).min(new.len()) - from
    );
    for line in &old[from..at] {
        out.push_str(&format!(" {line}\n"));
    }
    out.push_str(&format!("-{}\n+{}\n", old[at], new[at]));
    for line in &new[at + 1..(at + 4).min(new.len())] {
        out.push_str(&format!(" {line}\n"));
    }
    out
}

fn borrow<'a>(v: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    v.iter().map(|(p, t)| (*p, t.as_str())).collect()
}

struct Round {
    code: Arc<MemoryCode>,
    caches: Arc<ContextCaches>,
    analyzer: ToySyntax,
    files: Vec<FileDiff>,
}

impl Round {
    fn new(base: &[(&str, &str)], head: &[(&str, &str)], changed: &[(&str, String)]) -> Self {
        let code = MemoryCode::new().commit("base", base).commit("head", head);
        Self {
            code: Arc::new(code),
            caches: Arc::new(ContextCaches::default()),
            analyzer: ToySyntax::new(),
            files: changed
                .iter()
                .map(|(path, diff)| FileDiff {
                    new_path: (*path).to_owned(),
                    old_path: None,
                    change_type: ChangeType::Modified,
                    diff: Some(diff.clone()),
                })
                .collect(),
        }
    }

    async fn prepare(&self, settings: &ContextSettings) -> RoundContext {
        let reader = CodeReader::new(self.code.clone(), self.caches.clone(), "p1", settings);
        let reviewed: Vec<String> = self.files.iter().map(|f| f.new_path.clone()).collect();
        context::prepare(
            RoundRequest {
                mr_title: "Show the owner on the order",
                mr_description: Some(
                    "Adds the owner's name. token = \"ghp_0123456789abcdefghijABCDEFGHIJ0123\"",
                ),
                base: "base",
                head: "head",
                files: &self.files,
                reviewed: &reviewed,
            },
            Some(&reader),
            Some(&self.analyzer),
            settings,
        )
        .await
    }
}
