//! The rate limits: a busy MR, or a person who asks too much, gets no more answers
//! for a while.

use super::*;
use reviewd_domain::model::conversation::ConversationStatus;

#[tokio::test]
async fn the_rate_limits_stop_answers_in_a_busy_mr() {
    let (world, project, on_platform) = world(r#"{"answer":"x"}"#).await;
    let limits = reviewd_domain::services::TalkLimits::default();
    for n in 0..=limits.per_mr {
        let note = format!("n{n}");
        deliver(
            &world,
            &project,
            comment(&project, 2, (&note, None), "ana", "/reviewd help"),
        )
        .await;
    }
    assert_eq!(
        said_on(&world, &on_platform, 2).len(),
        limits.per_mr as usize
    );
    let last = conversations(&world, &project, 2).await.pop().unwrap();
    assert_eq!(last.status, ConversationStatus::Ignored);
    assert!(last.detail.unwrap().starts_with("rate limited"));
}
