//! What is never quoted, what is cached, and a failed read's cost.

use super::*;

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
