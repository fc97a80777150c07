//! The reviewer's context on the in-memory code source and the toy parser: what a
//! file's prompt carries beyond its diff, asked of the pieces as data ("did the
//! definition of X make it in, and why"), within the budget, without secrets,
//! with each read counted and cached.

#![expect(
    clippy::expect_used,
    reason = "tests: a panic fails the test, with its message"
)]

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

#[tokio::test]
async fn a_file_gets_its_enclosing_function_the_definitions_it_uses_and_the_guidance() {
    let base_orders = orders("    name = \"\"\n");
    let head_orders = orders("    name = find_user(order_id).name\n");
    let files = |orders: &str| {
        vec![
            ("app/orders.toy", orders.to_owned()),
            ("app/users.toy", USERS.to_owned()),
            (
                "AGENTS.md",
                "# Rules\nEvery lookup result is checked before use.\n".to_owned(),
            ),
            (".env", "DB_PASSWORD=hunter2-very-secret\n".to_owned()),
        ]
    };
    let (base, head) = (files(&base_orders), files(&head_orders));
    let diff = diff(&base_orders, &head_orders);
    let round = Round::new(
        &borrow(&base),
        &borrow(&head),
        &[("app/orders.toy", diff.clone())],
    );
    let gathered = round.prepare(&ContextSettings::default()).await;

    let piece = gathered.for_piece("app/orders.toy", &diff);
    let report = &piece.report;
    assert!(
        report.has(PieceKind::Enclosing, "total"),
        "the whole function the hunk sits in: {report:?}"
    );
    assert!(
        piece.text.contains("    2     lock(order_id)"),
        "the lock 40 lines above the change reaches the prompt, with its line number"
    );
    let definition = report
        .pieces
        .iter()
        .find(|p| p.kind == PieceKind::Definition && p.symbol.as_deref() == Some("find_user"))
        .expect("the definition of find_user");
    assert_eq!(
        (
            definition.path.as_str(),
            definition.start_line,
            definition.end_line
        ),
        ("app/users.toy", 1, 7)
    );
    assert!(definition.reason.contains("used by the changed lines"));
    assert!(
        piece.text.contains("        return nil"),
        "its body, where it returns nil"
    );
    assert!(
        gathered
            .shared()
            .contains("Every lookup result is checked before use."),
        "the team's guidance is in the shared part"
    );
    assert!(report.has(PieceKind::Guidance, "AGENTS.md"));
    assert!(
        gathered
            .shared()
            .contains("- app/orders.toy (modified, +1 -1): function total"),
        "the overview says what each file's change touches: {}",
        gathered.shared()
    );

    // Never sent: the env file (not even read) and the secret in the description.
    let everything = format!("{}\n{}", gathered.shared(), piece.text);
    assert!(
        !everything.contains("hunter2"),
        "the .env file is never read"
    );
    assert!(
        !everything.contains("ghp_0123456789"),
        "a token is masked: {everything}"
    );
    assert!(everything.contains("[secret masked by reviewd]"));
    let stats = gathered.stats();
    assert_eq!(
        stats.indexed_files, 2,
        "the .toy files; .env is not indexed"
    );
    assert_eq!(stats.guidance, ["AGENTS.md"]);
    assert!(stats.calls >= 1 && stats.bytes > 0);
}

#[tokio::test]
async fn a_rename_brings_the_callers_it_left_behind() {
    let base_prices = "fn get_price(item) {\n    return item.cents\n}\n";
    let head_prices = "fn price_of(item) {\n    return item.cents\n}\n";
    let cart = "fn cart_total(items) {\n    sum = 0\n    for item in items {\n        sum = sum + get_price(item)\n    }\n    return sum\n}\n";
    let diff = "@@ -1,3 +1,3 @@\n-fn get_price(item) {\n+fn price_of(item) {\n     return item.cents\n }\n";
    let round = Round::new(
        &[("shop/prices.toy", base_prices), ("shop/cart.toy", cart)],
        &[("shop/prices.toy", head_prices), ("shop/cart.toy", cart)],
        &[("shop/prices.toy", diff.to_owned())],
    );
    let gathered = round.prepare(&ContextSettings::default()).await;
    let piece = gathered.for_piece("shop/prices.toy", diff);
    let caller = piece
        .report
        .pieces
        .iter()
        .find(|p| p.kind == PieceKind::Caller)
        .expect("the caller of the old name");
    assert_eq!(
        (caller.path.as_str(), caller.symbol.as_deref()),
        ("shop/cart.toy", Some("cart_total"))
    );
    assert!(
        caller
            .reason
            .contains("`get_price`, which this change removes or renames")
    );
    assert!(piece.text.contains("sum + get_price(item)"));
}

#[tokio::test]
async fn the_budget_keeps_the_closest_pieces_and_counts_the_rest() {
    let base_orders = orders("    name = \"\"\n");
    let head_orders = orders("    name = find_user(order_id).name\n");
    let diff = diff(&base_orders, &head_orders);
    let round = Round::new(
        &[("app/orders.toy", &base_orders), ("app/users.toy", USERS)],
        &[("app/orders.toy", &head_orders), ("app/users.toy", USERS)],
        &[("app/orders.toy", diff.clone())],
    );
    let full = round.prepare(&ContextSettings::default()).await;
    let report = full.for_piece("app/orders.toy", &diff).report;
    let enclosing = report
        .pieces
        .iter()
        .find(|p| p.kind == PieceKind::Enclosing)
        .expect("the enclosing function")
        .tokens;
    // Room for the shared part and the enclosing function, not the definition.
    let budget = full.stats().shared_tokens + enclosing + 5;
    let tight = ContextSettings {
        budget_tokens: budget,
        ..ContextSettings::default()
    };
    let gathered = round.prepare(&tight).await;
    let report = gathered.for_piece("app/orders.toy", &diff).report;
    assert!(report.has(PieceKind::Enclosing, "total"));
    assert!(!report.has(PieceKind::Definition, "find_user"));
    assert_eq!(
        report.dropped, 1,
        "the definition was found, and left out for the budget"
    );
    assert!(
        report.tokens <= budget,
        "{} tokens of {budget}",
        report.tokens
    );

    // No context at all: the MR and the diff alone.
    let none = ContextSettings {
        mode: ContextMode::None,
        ..ContextSettings::default()
    };
    let bare = round.prepare(&none).await;
    let piece = bare.for_piece("app/orders.toy", &diff);
    assert!(piece.text.is_empty() && piece.report.pieces.is_empty());
    assert!(
        bare.shared()
            .starts_with("Merge request: Show the owner on the order")
    );
}

#[tokio::test]
async fn never_globs_and_secret_files_are_not_quoted_and_reads_are_cached() {
    let base_orders = orders("    name = \"\"\n");
    let head_orders = orders("    name = find_user(order_id).name\n");
    let diff = diff(&base_orders, &head_orders);
    let files = |orders: &'static str| -> Vec<(&'static str, &'static str)> {
        vec![("app/orders.toy", orders), ("fixtures/users.toy", USERS)]
    };
    let (base, head): (&'static str, &'static str) = (
        Box::leak(base_orders.into_boxed_str()),
        Box::leak(head_orders.into_boxed_str()),
    );
    let round = Round::new(
        &files(base),
        &files(head),
        &[("app/orders.toy", diff.clone())],
    );
    let never = ContextSettings {
        never: vec!["fixtures/**".into()],
        ..ContextSettings::default()
    };
    let gathered = round.prepare(&never).await;
    let report = gathered.for_piece("app/orders.toy", &diff).report;
    assert!(
        !report
            .pieces
            .iter()
            .any(|p| p.path.starts_with("fixtures/")),
        "context.never keeps a file out: {report:?}"
    );

    // A second round on the same head: the index and the contents come from the
    // caches; the parser does not run again.
    let parsed = round.analyzer.parsed();
    let again = round.prepare(&ContextSettings::default()).await;
    assert_eq!(
        round.analyzer.parsed(),
        parsed + 1,
        "only the base version is parsed again"
    );
    assert!(
        again
            .for_piece("app/orders.toy", &diff)
            .report
            .has(PieceKind::Definition, "find_user")
    );
    assert_eq!(
        round
            .code
            .calls()
            .iter()
            .filter(|c| **c == "archive")
            .count(),
        1,
        "the same head again: the index and the files come from the caches"
    );
    assert!(again.stats().cache_hits > 0);
}

#[tokio::test]
async fn a_failed_read_costs_only_its_context_and_the_call_budget_holds() {
    let base_orders = orders("    name = \"\"\n");
    let head_orders = orders("    name = find_user(order_id).name\n");
    let diff = diff(&base_orders, &head_orders);
    let code = MemoryCode::new()
        .commit("base", &[("app/orders.toy", &base_orders)])
        .commit(
            "head",
            &[("app/orders.toy", &head_orders), ("app/users.toy", USERS)],
        )
        .archive_fails(PlatformError::Unavailable("HTTP 502".into()));
    let round = Round {
        code: Arc::new(code),
        caches: Arc::new(ContextCaches::default()),
        analyzer: ToySyntax::new(),
        files: vec![FileDiff {
            new_path: "app/orders.toy".into(),
            old_path: None,
            change_type: ChangeType::Modified,
            diff: Some(diff.clone()),
        }],
    };
    let gathered = round.prepare(&ContextSettings::default()).await;
    let report = gathered.for_piece("app/orders.toy", &diff).report;
    assert!(
        report.has(PieceKind::Enclosing, "total"),
        "the file itself is read on its own when the archive fails"
    );
    assert_eq!(gathered.stats().indexed_files, 0);
    assert!(gathered.stats().errors[0].contains("HTTP 502"));

    let stingy = ContextSettings {
        max_calls: 1,
        ..ContextSettings::default()
    };
    let limited = Round {
        code: Arc::new(
            MemoryCode::new()
                .commit("base", &[("app/orders.toy", &base_orders)])
                .commit(
                    "head",
                    &[("app/orders.toy", &head_orders), ("app/users.toy", USERS)],
                ),
        ),
        caches: Arc::new(ContextCaches::default()),
        analyzer: ToySyntax::new(),
        files: round.files.clone(),
    };
    let gathered = limited.prepare(&stingy).await;
    assert_eq!(limited.code.calls().len(), 1, "one call allowed, one made");
    assert!(gathered.stats().limited);
}
