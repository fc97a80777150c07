//! The prompts a review sends, whole, against a snapshot kept beside this file:
//! a change to the frame, the layout (the stable prefix first, for provider
//! caching), the context's rendering or the summary call shows in review as a
//! diff of `tests/snapshots/`. A changed prompt fails the test and leaves a
//! `.snap.new` beside the old one; `cargo insta review` (or `INSTA_UPDATE=always`)
//! accepts it.

use reviewd_domain::context::{self, CodeReader, ContextCaches, ContextSettings, RoundRequest};
use reviewd_domain::model::diff::{ChangeType, FileDiff};
use reviewd_domain::model::grade::Severity;
use reviewd_domain::review::mr_summary::{self, FileOutcome};
use reviewd_domain::review::prompt;
use reviewd_testkit::fakes::code::{MemoryCode, ToySyntax};
use std::sync::Arc;

#[tokio::test]
async fn a_file_prompt_and_the_summary_prompt_read_as_snapshotted() {
    let users = "fn find_user(id) {\n    return db_get(id)\n}\n";
    let base = "fn show(id) {\n    log(id)\n    render(id)\n}\n";
    let head = "fn show(id) {\n    log(id)\n    name = find_user(id).name\n    render(id)\n}\n";
    let diff = "@@ -1,4 +1,5 @@\n fn show(id) {\n     log(id)\n+    name = find_user(id).name\n     render(id)\n }\n";
    let code = MemoryCode::new()
        .commit("base", &[("web/show.toy", base), ("db/users.toy", users)])
        .commit(
            "head",
            &[
                ("web/show.toy", head),
                ("db/users.toy", users),
                ("CONTRIBUTING.md", "Check every lookup before use.\n"),
            ],
        );
    let settings = ContextSettings::default();
    let reader = CodeReader::new(
        Arc::new(code),
        Arc::new(ContextCaches::default()),
        "p",
        &settings,
    );
    let files = vec![FileDiff {
        new_path: "web/show.toy".into(),
        old_path: None,
        change_type: ChangeType::Modified,
        diff: Some(diff.into()),
    }];
    let round = context::prepare(
        RoundRequest {
            mr_title: "Show the user's name",
            mr_description: Some("Shows the name beside the id."),
            base: "base",
            head: "head",
            files: &files,
            reviewed: &["web/show.toy".to_owned()],
        },
        Some(&reader),
        Some(&ToySyntax::new()),
        &settings,
    )
    .await;
    let piece = round.for_piece("web/show.toy", diff);
    let user = prompt::user_prompt("web/show.toy", ChangeType::Modified, &[], &piece.text, diff);
    insta::assert_snapshot!(
        "file_prompt",
        format!(
            "=== system\n{}\n=== shared\n{}=== user\n{user}",
            prompt::system_prompt(None),
            round.shared()
        ),
    );
    let outcomes = [FileOutcome {
        path: "web/show.toy".into(),
        summary: "Shows the user's name.".into(),
        comments: vec![(Severity::Error, 3, "find_user may return nothing.".into())],
        failed: false,
    }];
    insta::assert_snapshot!(
        "summary_prompt",
        format!(
            "=== system\n{}\n=== user\n{}",
            mr_summary::SUMMARY_FRAME,
            mr_summary::prompt(&outcomes)
        ),
    );
}
