//! The token budget keeps the closest pieces and counts the rest.

use super::*;

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
