//! Rows the store cannot read: unknown enum text, an unreadable digest payload.

use super::*;

#[tokio::test]
async fn unknown_enum_text_in_a_row_is_a_corrupt_row() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let record = notifications
        .add_delivery(NewDelivery {
            review_id: None,
            channel: Channel::Email,
            notification_type: NotificationType::ReviewCompleted,
            recipient: None,
            payload: serde_json::json!({}),
        })
        .await
        .unwrap();
    execute_sql(
        &pool,
        &format!(
            "ALTER TABLE notification_history DROP CONSTRAINT notification_history_channel_check;
             UPDATE notification_history SET channel = 'fax' WHERE id = '{}'",
            record.id
        ),
    )
    .await;
    assert!(matches!(
        notifications.record(record.id).await,
        Err(RepoError::Other(e)) if e.to_string().contains("fax")
    ));
    assert!(matches!(
        notifications
            .history(&HistoryFilter::default(), PageRequest::new(1, 10, 100))
            .await,
        Err(RepoError::Other(_))
    ));
    assert!(matches!(
        notifications.stats(None, None).await,
        Err(RepoError::Other(_))
    ));
}

#[tokio::test]
async fn an_unreadable_digest_payload_marks_nothing_digested() {
    let db = TestDb::new().await;
    let (notifications, pool) = repo(&db).await;
    let review = reviews(&pool, 1).await[0];
    notifications
        .add_digest_event(NotificationType::ReviewCompleted, &event(review))
        .await
        .unwrap();
    execute_sql(
        &pool,
        "INSERT INTO notification_digest_events (event_type, payload)
              VALUES ('review_failed', '{\"reviewId\": \"not-a-uuid\"}')",
    )
    .await;
    let now = Utc::now() + Duration::seconds(1);
    assert!(matches!(
        notifications.take_digest_events(now).await,
        Err(RepoError::Other(_))
    ));
    execute_sql(
        &pool,
        "DELETE FROM notification_digest_events WHERE review_id IS NULL",
    )
    .await;
    assert_eq!(
        notifications.take_digest_events(now).await.unwrap().len(),
        1,
        "the readable event was left for the next digest"
    );
}

fn event(review_id: Uuid) -> ReviewEvent {
    ReviewEvent {
        review_id: review_id.into(),
        project_name: "g/p".into(),
        mr_iid: 1,
        mr_title: "MR 1".into(),
        mr_url: "https://git.example.com/g/p/-/merge_requests/1".into(),
        author: None,
        status: "completed".into(),
        rating: Some("B".into()),
        score: Some(80),
        comment_count: 2,
        error_message: None,
    }
}
