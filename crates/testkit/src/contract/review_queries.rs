//! The `ReviewQueries` contract: the API's lists and views of reviews, over rows
//! written through the review repository (and the tasks and runners for logs).

use super::{Stores, seed};
use reviewd_domain::PageRequest;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::grade::{Rating, Severity};
use reviewd_domain::model::review::AiCallStatus;
use reviewd_domain::model::review::{AiCallRecord, ReviewStatus, RoundRef};
use reviewd_domain::model::review_views::ReviewFilter;
use reviewd_domain::model::task::TriggeredBy;
use reviewd_domain::model::{ReviewFileId, ReviewId};
use reviewd_domain::ports::RepoError;

pub async fn run(s: &Stores) {
    list_filters_and_counts_the_whole_set(s).await;
    list_searches_filters_and_bounds(s).await;
    activity_counts_days_ratings_and_failures(s).await;
    detail_of_a_review(s).await;
    comments_by_file_then_line(s).await;
    files_of_the_latest_round(s).await;
    ai_logs_newest_first(s).await;
    task_logs_of_the_review_tasks(s).await;
}

fn of_project(project_id: ProjectId) -> ReviewFilter {
    ReviewFilter {
        project_id: Some(project_id),
        ..ReviewFilter::default()
    }
}

async fn list_filters_and_counts_the_whole_set(s: &Stores) {
    let project = seed::project(s).await;
    let other = seed::project(s).await;
    seed::finished_review(s, &other, seed::completed(Rating::A, 100, 9)).await;
    let a = seed::finished_review(s, &project, seed::completed(Rating::B, 80, 2)).await;
    let b = seed::finished_review(s, &project, seed::completed(Rating::A, 91, 3)).await;
    let c = seed::finished_review(s, &project, seed::failed("boom")).await;
    let d = seed::review(s, &project, 77, "h1").await;

    let (page, stats) = s
        .review_queries
        .list(&of_project(project.id), PageRequest::new(1, 3, 100))
        .await
        .unwrap();
    let ids: Vec<ReviewId> = page.items.iter().map(|r| r.id).collect();
    assert_eq!(ids, [d.id, c.id, b.id], "newest first");
    assert_eq!(page.total, 4);
    assert_eq!(
        (stats.total, stats.pending, stats.completed, stats.failed),
        (4, 1, 2, 1)
    );
    assert_eq!(stats.total_comments, 5, "of the filtered set, not the page");
    assert_eq!(stats.average_score, Some(85.5));

    let (last, _) = s
        .review_queries
        .list(&of_project(project.id), PageRequest::new(2, 3, 100))
        .await
        .unwrap();
    assert_eq!(last.items.iter().map(|r| r.id).collect::<Vec<_>>(), [a.id]);

    let completed = ReviewFilter {
        status: Some(ReviewStatus::Completed),
        ..of_project(project.id)
    };
    let (page, stats) = s
        .review_queries
        .list(&completed, PageRequest::new(1, 10, 100))
        .await
        .unwrap();
    assert_eq!((page.total, stats.total, stats.failed), (2, 2, 0));
    assert_eq!(page.items[0].overall_rating, Some(Rating::A));
}

async fn list_searches_filters_and_bounds(s: &Stores) {
    let project = seed::project(s).await;
    let first = seed::review(s, &project, 1, "h1").await;
    seed::review(s, &project, 2, "h2").await;
    let page = PageRequest::new(1, 10, 100);
    let list = |f: ReviewFilter| async move {
        let (page, stats) = s.review_queries.list(&f, page).await.unwrap();
        assert_eq!(page.total, stats.total);
        page.items.into_iter().map(|r| r.mr_iid).collect::<Vec<_>>()
    };

    let search = ReviewFilter {
        project_search: Some(format!(" {} ", project.name.to_uppercase())),
        ..ReviewFilter::default()
    };
    assert_eq!(list(search).await, [2, 1], "case-insensitive, trimmed");
    let manual = ReviewFilter {
        triggered_by: Some(TriggeredBy::Manual),
        ..of_project(project.id)
    };
    assert!(list(manual).await.is_empty());
    let created = s
        .review_queries
        .detail(first.id)
        .await
        .unwrap()
        .item
        .created_at;
    let until_first = ReviewFilter {
        end_date: Some(created),
        ..of_project(project.id)
    };
    assert_eq!(list(until_first).await, [1]);
    let from_first = ReviewFilter {
        start_date: Some(created),
        ..of_project(project.id)
    };
    assert_eq!(list(from_first).await, [2, 1]);
}

async fn activity_counts_days_ratings_and_failures(s: &Stores) {
    let project = seed::project(s).await;
    let c = seed::finished_review(s, &project, seed::completed(Rating::C, 65, 0)).await;
    seed::finished_review(s, &project, seed::completed(Rating::A, 95, 0)).await;
    seed::finished_review(s, &project, seed::failed("older failure")).await;
    let failed = seed::finished_review(s, &project, seed::failed("model timed out")).await;
    seed::review(s, &project, 99, "h1").await;
    let since = s.review_queries.detail(c.id).await.unwrap().item.created_at;

    let activity = s.review_queries.activity(since, 1).await.unwrap();
    let sum = |f: fn(&_) -> u64| activity.days.iter().map(f).sum::<u64>();
    assert_eq!(sum(|d| d.total), 5);
    assert_eq!((sum(|d| d.completed), sum(|d| d.failed)), (2, 2));
    assert!(activity.days.windows(2).all(|w| w[0].day < w[1].day));
    assert_eq!(activity.ratings, [("A".to_owned(), 1), ("C".to_owned(), 1)]);
    let newest = &activity.recent_failures;
    assert_eq!(newest.len(), 1);
    assert_eq!(newest[0].id, failed.id);
    assert_eq!(newest[0].error_message.as_deref(), Some("model timed out"));
    assert_eq!(newest[0].project_name, project.name);
}

async fn detail_of_a_review(s: &Stores) {
    let project = seed::project(s).await;
    let review = seed::review(s, &project, 21, "h1").await;
    let detail = s.review_queries.detail(review.id).await.unwrap();
    assert_eq!(detail.item.id, review.id);
    assert_eq!(
        (detail.item.mr_iid, detail.item.mr_title.as_str()),
        (21, "Change 21")
    );
    assert_eq!(
        (
            detail.item.status.as_str(),
            detail.item.triggered_by.as_str()
        ),
        ("pending", "auto")
    );
    assert_eq!(
        (detail.source_branch.as_str(), detail.target_branch.as_str()),
        ("feature", "main")
    );
    assert_eq!(detail.author_username.as_deref(), Some("alice"));
    assert_eq!(
        (detail.head_commit_sha.as_str(), detail.round_number),
        ("h1", 1)
    );
    assert!(detail.started_at.is_some() && detail.item.completed_at.is_none());
    assert!(
        s.review_queries
            .feedbacks(review.id)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(s.review_queries.rounds(review.id).await.unwrap().is_empty());
    assert!(matches!(
        s.review_queries.detail(ReviewId::new_v4()).await,
        Err(RepoError::NotFound)
    ));
}

async fn comment_on(
    s: &Stores,
    review: ReviewId,
    round: RoundRef,
    file: ReviewFileId,
    at: (&str, u32, Severity),
) {
    let placed = seed::comment(file, at.0, at.1, at.2);
    s.reviews
        .add_comments(review, round, &[placed])
        .await
        .unwrap();
}

async fn comments_by_file_then_line(s: &Stores) {
    let (_, review, one) = seed::review_in_first_round(s, 31).await;
    let b = seed::file(s, &review, one, "b.rs").await;
    let a = seed::file(s, &review, one, "a.rs").await;
    comment_on(s, review.id, one, b, ("b.rs", 3, Severity::Warning)).await;
    comment_on(s, review.id, one, a, ("a.rs", 10, Severity::Error)).await;
    comment_on(s, review.id, one, a, ("a.rs", 2, Severity::Info)).await;
    s.reviews
        .finish(review.id, one, "h1", seed::completed(Rating::C, 70, 3))
        .await
        .unwrap();
    let two = seed::second_round(s, &review, "h2").await;
    let a2 = seed::file(s, &review, two, "a.rs").await;
    comment_on(s, review.id, two, a2, ("a.rs", 5, Severity::Warning)).await;

    let comments = |path, severity, limit, offset| async move {
        let (items, total) = s
            .review_queries
            .comments(review.id, path, severity, limit, offset)
            .await
            .unwrap();
        let at: Vec<_> = items
            .into_iter()
            .map(|c| (c.file_path, c.line_number, c.round_number))
            .collect();
        (at, total)
    };
    let at = |path: &str, line, round| (path.to_owned(), line, round);
    let every = [
        at("a.rs", 2, 1),
        at("a.rs", 5, 2),
        at("a.rs", 10, 1),
        at("b.rs", 3, 1),
    ];
    assert_eq!(comments(None, None, 10, 0).await, (every.to_vec(), 4));
    assert_eq!(comments(None, None, 2, 1).await, (every[1..3].to_vec(), 4));
    assert_eq!(
        comments(Some("a.rs"), None, 10, 0).await,
        (every[..3].to_vec(), 3)
    );
    let warnings = vec![every[1].clone(), every[3].clone()];
    assert_eq!(comments(None, Some("warning"), 10, 0).await, (warnings, 2));
    assert_eq!(
        comments(Some("b.rs"), Some("error"), 10, 0).await,
        (vec![], 0)
    );
}

async fn files_of_the_latest_round(s: &Stores) {
    let project = seed::project(s).await;
    let review = seed::review(s, &project, 41, "h1").await;
    assert!(s.review_queries.files(review.id).await.unwrap().is_empty());
    let one = seed::first_round(s, &review).await;
    seed::file(s, &review, one, "x.rs").await;
    seed::file(s, &review, one, "y.rs").await;
    s.reviews
        .finish(review.id, one, "h1", seed::completed(Rating::A, 90, 0))
        .await
        .unwrap();
    let two = seed::second_round(s, &review, "h2").await;
    seed::file(s, &review, two, "z.rs").await;
    seed::file(s, &review, two, "a.rs").await;

    let files = s.review_queries.files(review.id).await.unwrap();
    let shape: Vec<_> = files
        .iter()
        .map(|f| (f.file_path.as_str(), f.round_number))
        .collect();
    assert_eq!(shape, [("a.rs", 2), ("z.rs", 2)]);
}

async fn ai_logs_newest_first(s: &Stores) {
    let project = seed::project(s).await;
    let review = seed::review(s, &project, 51, "h1").await;
    for (provider, success) in [
        ("providerA", true),
        ("providerA", false),
        ("providerB", true),
    ] {
        let call = AiCallRecord {
            review_id: Some(review.id),
            file_path: Some(format!("{provider}.rs")),
            provider: provider.into(),
            model: "model-1".into(),
            success,
            duration_ms: 10,
            prompt_tokens: 1,
            completion_tokens: 1,
            total_tokens: 2,
            cached_tokens: 0,
            cost_usd: None,
            error_message: None,
        };
        s.reviews.log_ai_call(call).await.unwrap();
    }
    let logs = |provider, status, limit, offset| async move {
        let (items, total) = s
            .review_queries
            .ai_logs(review.id, provider, status, limit, offset)
            .await
            .unwrap();
        let calls: Vec<_> = items
            .into_iter()
            .map(|c| (c.provider, c.status.to_string()))
            .collect();
        (calls, total)
    };
    let call = |p: &str, st: &str| (p.to_owned(), st.to_owned());
    let every = [
        call("providerB", "success"),
        call("providerA", "failed"),
        call("providerA", "success"),
    ];
    assert_eq!(logs(None, None, 10, 0).await, (every.to_vec(), 3));
    assert_eq!(logs(None, None, 1, 1).await, (every[1..2].to_vec(), 3));
    assert_eq!(
        logs(Some("providerA"), None, 10, 0).await,
        (every[1..].to_vec(), 2)
    );
    assert_eq!(
        logs(None, Some(AiCallStatus::Success), 10, 0).await,
        (vec![every[0].clone(), every[2].clone()], 2)
    );
}

async fn task_logs_of_the_review_tasks(s: &Stores) {
    let project = seed::project(s).await;
    let review = seed::review(s, &project, 61, "h1").await;
    let linked = seed::task(s, &project, 61, "h1").await;
    let unlinked = seed::task(s, &project, 62, "h1").await;
    s.tasks.link_review(linked.id, review.id).await.unwrap();
    let lines = |l: &[&str]| l.iter().map(|l| (*l).to_owned()).collect::<Vec<_>>();
    s.runners
        .append_logs(linked.id, &lines(&["cloning", "reviewing"]))
        .await
        .unwrap();
    s.runners
        .append_logs(unlinked.id, &lines(&["elsewhere"]))
        .await
        .unwrap();
    s.runners
        .append_logs(linked.id, &lines(&["done"]))
        .await
        .unwrap();

    let logs = s.review_queries.task_logs(review.id).await.unwrap();
    let shape: Vec<_> = logs
        .iter()
        .map(|l| (l.task_id, l.line_no, l.message.as_str()))
        .collect();
    let id = linked.id;
    assert_eq!(
        shape,
        [(id, 1, "cloning"), (id, 2, "reviewing"), (id, 3, "done")]
    );
}
