//! What a file's review sees: its enclosing function, the definitions it uses, the guidance, and
//! the callers a rename left behind.

use super::*;

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
