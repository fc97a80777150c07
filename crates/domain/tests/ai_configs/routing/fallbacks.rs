//! Fallback models: a configuration's calls go to its fallbacks, in order, when its
//! own model is down, limited or gone; each call is logged under the model asked and
//! costed at its prices; what may be listed is checked.

use super::*;
use reviewd_domain::model::review::AiCallStatus;
use reviewd_domain::model::review_views::AiLogItem;
use reviewd_testkit::fakes::ai::ScriptedAi;
use reviewd_testkit::world::{answer, is_summary, summary_answer};

/// The first of `names` the default, falling back on the next three; priced 1, 2,
/// 3... $/MTok in turn.
async fn chain(world: &World, names: &[&str]) -> Vec<AiConfig> {
    let mut configs = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let price = f64::from(u32::try_from(i).unwrap() + 1);
        configs.push(
            world
                .ai_configs
                .create(AiConfigInput {
                    is_default: Some(i == 0),
                    input_price_per_mtok: Some(price),
                    output_price_per_mtok: Some(price),
                    ..input(name)
                })
                .await
                .unwrap(),
        );
    }
    let rest: Vec<Uuid> = configs[1..].iter().take(3).map(|c| c.id).collect();
    world
        .ai_configs
        .update(
            configs[0].id,
            AiConfigPatch {
                fallback_ids: Some(rest),
                ..AiConfigPatch::default()
            },
        )
        .await
        .unwrap();
    configs
}

/// Every model fails as `down` says; the others find one problem on line 1.
fn ai(down: impl Fn(&str) -> Option<AiError> + Send + Sync + 'static) -> ScriptedAi {
    ScriptedAi::answering(move |r| {
        if let Some(e) = down(&r.model) {
            return Err(e);
        }
        Ok(if is_summary(r) {
            summary_answer(r, "one change")
        } else {
            answer("ok", &[(1, "warning", "`a` is never read")])
        })
    })
}

/// The review's outcome, and the models asked about the file, in order.
async fn review(world: &World) -> (RunOutcome, Vec<String>) {
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(one_file_mr(1)))
        .await;
    let task = world.enqueue(&project, 1, "h1").await;
    let outcome = world.run(&task).await;
    let asked = world
        .ai
        .requests()
        .into_iter()
        .filter(|r| !is_summary(r))
        .map(|r| r.model)
        .collect();
    (outcome, asked)
}

/// The AI log's rows for `path`, as (configuration, model, succeeded).
async fn logged(world: &World, outcome: &RunOutcome, path: &str) -> Vec<AiLogItem> {
    let RunOutcome::Completed { review_id } = outcome else {
        panic!("the review did not complete: {outcome:?}");
    };
    let (mut calls, _) = world
        .stores
        .review_queries
        .ai_logs(*review_id, None, None, 50, 0)
        .await
        .unwrap();
    calls.retain(|c| c.file_path.as_deref() == Some(path));
    // The primary's failure was logged first; rows may share a timestamp.
    calls.sort_by_key(|c| c.model.clone());
    calls
}

fn row(c: &AiLogItem) -> (&str, &str, bool) {
    (
        c.provider.as_str(),
        c.model.as_str(),
        c.status == AiCallStatus::Success,
    )
}

#[tokio::test]
async fn a_primary_answering_503_hands_the_file_to_the_fallback_and_the_log_shows_both() {
    let world = World::with(
        ai(|model| {
            (model == "model-big").then(|| AiError::Unavailable("503 Service Unavailable".into()))
        }),
        Default::default(),
    );
    chain(&world, &["big", "small"]).await;
    let (outcome, asked) = review(&world).await;
    assert_eq!(asked, ["model-big", "model-small"]);
    let file = logged(&world, &outcome, "src/lib.rs").await;
    assert_eq!(
        file.iter().map(row).collect::<Vec<_>>(),
        [("big", "model-big", false), ("small", "model-small", true)]
    );
    assert!(file[0].error_message.as_deref().unwrap().contains("503"));
    // Priced at the fallback's 2 $/MTok, not the primary's 1.
    let tokens = f64::from(file[1].prompt_tokens + file[1].completion_tokens);
    let cost = file[1].cost_usd.unwrap();
    assert!(
        (cost - tokens * 2.0 / 1e6).abs() < 1e-12,
        "{cost} for {tokens} tokens"
    );
    let RunOutcome::Completed { review_id } = outcome else {
        unreachable!()
    };
    let detail = world.stores.review_queries.detail(review_id).await.unwrap();
    assert_eq!(
        detail.item.comment_count, 1,
        "the fallback's finding is posted"
    );
}

#[tokio::test]
async fn fallbacks_are_tried_in_order_and_a_missing_model_or_a_rate_limit_counts() {
    let world = World::with(
        ai(|model| match model {
            "model-big" => Some(AiError::ModelNotFound("model-big was withdrawn".into())),
            "model-small" => Some(AiError::RateLimited { retry_after: None }),
            _ => None,
        }),
        Default::default(),
    );
    chain(&world, &["big", "small", "tiny"]).await;
    let (outcome, asked) = review(&world).await;
    assert_eq!(asked, ["model-big", "model-small", "model-tiny"]);
    let file = logged(&world, &outcome, "src/lib.rs").await;
    assert_eq!(
        file.iter().map(row).collect::<Vec<_>>(),
        [
            ("big", "model-big", false),
            ("small", "model-small", false),
            ("tiny", "model-tiny", true)
        ]
    );
}

#[tokio::test]
async fn a_rejected_key_is_not_hidden_by_a_fallback() {
    let world = World::with(
        ai(|model| (model == "model-big").then_some(AiError::Unauthorized)),
        Default::default(),
    );
    chain(&world, &["big", "small"]).await;
    let (_, asked) = review(&world).await;
    assert_eq!(asked, ["model-big"], "the fallback was never asked");
}

#[tokio::test]
async fn when_every_model_is_down_the_review_waits_for_another_attempt() {
    let world = World::with(
        ai(|_| Some(AiError::Unavailable("503".into()))),
        Default::default(),
    );
    chain(&world, &["big", "small"]).await;
    let (outcome, asked) = review(&world).await;
    assert!(matches!(outcome, RunOutcome::Retry { .. }), "{outcome:?}");
    assert_eq!(asked, ["model-big", "model-small"]);
}

#[tokio::test]
async fn what_a_configuration_may_list_as_fallbacks() {
    let world = World::new();
    let configs = chain(&world, &["a", "b", "c", "d", "e"]).await;
    let ids: Vec<Uuid> = configs.iter().map(|c| c.id).collect();
    let set = |list: Vec<Uuid>| {
        world.ai_configs.update(
            ids[0],
            AiConfigPatch {
                fallback_ids: Some(list),
                ..AiConfigPatch::default()
            },
        )
    };
    assert_eq!(
        fields(set(ids[1..].to_vec()).await),
        ["fallbackIds"],
        "four"
    );
    assert_eq!(fields(set(vec![ids[0]]).await), ["fallbackIds"], "itself");
    assert_eq!(
        fields(set(vec![ids[1], ids[1]]).await),
        ["fallbackIds"],
        "twice"
    );
    assert!(
        matches!(
            set(vec![Uuid::new_v4()]).await,
            Err(ServiceError::NotFound(_))
        ),
        "an unknown one is a 404, as a project's aiConfigId naming none"
    );
    let created = world
        .ai_configs
        .create(AiConfigInput {
            fallback_ids: Some(vec![Uuid::new_v4()]),
            ..input("f")
        })
        .await;
    assert!(matches!(created, Err(ServiceError::NotFound(_))));

    // Stored in the order given; a deleted fallback leaves the list.
    let stored = set(vec![ids[3], ids[1]]).await.unwrap();
    assert_eq!(stored.fallback_ids, [ids[3], ids[1]]);
    world.ai_configs.delete(ids[3]).await.unwrap();
    let after = world.ai_configs.get(ids[0]).await.unwrap();
    assert_eq!(after.fallback_ids, [ids[1]]);
    // Other changes keep the list; `[]` clears it.
    let renamed = world
        .ai_configs
        .update(
            ids[0],
            AiConfigPatch {
                name: Some("renamed".into()),
                ..AiConfigPatch::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(renamed.fallback_ids, [ids[1]]);
    assert!(set(Vec::new()).await.unwrap().fallback_ids.is_empty());
}
