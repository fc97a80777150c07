//! The `ReviewRepository` contract: reviews as the engine writes them, round by
//! round, read back through the port and through `ReviewQueries`.

use super::{Stores, seed};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::diff::{ChangeType, Suggestion};
use reviewd_domain::model::grade::{Rating, Severity};
use reviewd_domain::model::review::FileStatus;
use reviewd_domain::model::review::{
    AiCallRecord, FileProgress, NewReviewFile, PlacedComment, ReviewStatus,
};
use reviewd_domain::model::review_views::FileItem;
use reviewd_domain::model::{ReviewFileId, ReviewId};
use reviewd_domain::ports::RepoError;
use std::collections::HashSet;
use uuid::Uuid;

pub async fn run(s: &Stores) {
    a_review_needs_its_project(s).await;
    rounds_accumulate_on_one_review(s).await;
    a_round_started_again_is_redone(s).await;
    files_record_their_progress(s).await;
    comments_are_stored_and_marked_posted(s).await;
    a_suggestion_is_stored_with_its_comment(s).await;
    fingerprints_are_what_was_said(s).await;
    finish_writes_the_outcome(s).await;
    a_failed_round_is_not_completed(s).await;
    ai_calls_are_logged(s).await;
    context_is_kept_with_files_and_rounds(s).await;
}

fn progress(status: FileStatus) -> FileProgress {
    FileProgress {
        status,
        summary: None,
        comment_count: 0,
        prompt_summary: None,
        error_message: None,
        context: None,
    }
}

async fn file_item(s: &Stores, review_id: ReviewId, id: ReviewFileId) -> FileItem {
    let files = s.review_queries.files(review_id).await.unwrap();
    files.into_iter().find(|f| f.id == id).unwrap()
}

async fn a_review_needs_its_project(s: &Stores) {
    let project = seed::project(s).await;
    let mut gone = seed::new_review(&project, 1, "h1");
    gone.project_id = ProjectId::new_v4();
    assert!(matches!(
        s.reviews.create(gone).await,
        Err(RepoError::NotFound)
    ));
    assert!(matches!(
        s.reviews.get(ReviewId::new_v4()).await,
        Err(RepoError::NotFound)
    ));
    assert!(matches!(
        s.reviews
            .start_round(ReviewId::new_v4(), 1, false, None, "h1")
            .await,
        Err(RepoError::NotFound)
    ));
}

async fn rounds_accumulate_on_one_review(s: &Stores) {
    let project = seed::project(s).await;
    let review = seed::review(s, &project, 7, "h1").await;
    assert_eq!(review.status, ReviewStatus::Pending);
    assert_eq!((review.round_number, review.comment_count), (1, 0));
    assert_eq!(s.reviews.get(review.id).await.unwrap(), review);
    let found = s.reviews.find_for_mr(project.id, 7).await.unwrap();
    assert_eq!(found, Some(review.clone()));
    assert_eq!(s.reviews.find_for_mr(project.id, 8).await.unwrap(), None);

    let one = seed::first_round(s, &review).await;
    s.reviews
        .finish(review.id, one, "h1", seed::completed(Rating::A, 95, 0))
        .await
        .unwrap();
    let two = seed::second_round(s, &review, "h2").await;
    assert_eq!(two.number, 2);
    assert_ne!(two.id, one.id);
    let again = s.reviews.find_for_mr(project.id, 7).await.unwrap().unwrap();
    assert_eq!(again.id, review.id);
    assert_eq!(
        again.status,
        ReviewStatus::Pending,
        "a new round reopens it"
    );

    let rounds = s.review_queries.rounds(review.id).await.unwrap();
    let shape: Vec<_> = rounds
        .iter()
        .map(|r| {
            (
                r.round_number,
                r.is_differential,
                r.base_sha.as_deref(),
                r.head_sha.as_str(),
            )
        })
        .collect();
    assert_eq!(shape, [(1, false, None, "h1"), (2, true, Some("h1"), "h2")]);
}

async fn a_round_started_again_is_redone(s: &Stores) {
    let (_, review, first) = seed::review_in_first_round(s, 3).await;
    let file = seed::file(s, &review, first, "src/lib.rs").await;
    let comment = seed::comment(file, "src/lib.rs", 4, Severity::Warning);
    let ids = s
        .reviews
        .add_comments(review.id, first, &[comment])
        .await
        .unwrap();
    s.reviews.mark_posted(ids[0], None).await.unwrap();

    // An interrupted attempt is retried under its own number: what it stored goes.
    let redo = seed::first_round(s, &review).await;
    assert_eq!(redo.number, 1);
    let rounds = s.review_queries.rounds(review.id).await.unwrap();
    assert_eq!(rounds.iter().map(|r| r.id).collect::<Vec<_>>(), [redo.id]);
    assert!(s.review_queries.files(review.id).await.unwrap().is_empty());
    let (comments, total) = s
        .review_queries
        .comments(review.id, None, None, 10, 0)
        .await
        .unwrap();
    assert!(comments.is_empty());
    assert_eq!(total, 0);
    assert!(s.reviews.fingerprints(review.id).await.unwrap().is_empty());
    assert!(matches!(
        s.reviews.file_ref(review.id, file).await,
        Err(RepoError::NotFound)
    ));
}

async fn files_record_their_progress(s: &Stores) {
    let (project, review, round) = seed::review_in_first_round(s, 4).await;
    let id = seed::file(s, &review, round, "src/main.rs").await;
    let stored = file_item(s, review.id, id).await;
    assert_eq!((stored.status.as_str(), stored.attempts), ("pending", 0));
    assert_eq!(
        (stored.change_type.as_str(), stored.round_number),
        ("modified", 1)
    );
    let path_ref = s.reviews.file_ref(review.id, id).await.unwrap();
    assert_eq!(path_ref, ("src/main.rs".to_owned(), None, round));
    let again = NewReviewFile {
        file_path: "src/main.rs".into(),
        old_path: None,
        change_type: ChangeType::New,
        status: FileStatus::Pending,
    };
    let twice = s.reviews.add_file(review.id, round, again).await;
    assert!(matches!(twice, Err(RepoError::Conflict(_))), "{twice:?}");
    let other = seed::review(s, &project, 5, "h1").await;
    assert!(matches!(
        s.reviews.file_ref(other.id, id).await,
        Err(RepoError::NotFound)
    ));

    s.reviews
        .update_file(id, progress(FileStatus::Processing))
        .await
        .unwrap();
    let working = file_item(s, review.id, id).await;
    assert_eq!(
        (working.status.as_str(), working.attempts),
        ("processing", 1)
    );
    assert!(working.started_at.is_some() && working.completed_at.is_none());

    let done = FileProgress {
        summary: Some("Fine".into()),
        comment_count: 2,
        ..progress(FileStatus::Completed)
    };
    s.reviews.update_file(id, done).await.unwrap();
    let finished = file_item(s, review.id, id).await;
    assert_eq!(
        (finished.summary.as_deref(), finished.comment_count),
        (Some("Fine"), 2)
    );
    assert!(finished.completed_at.is_some());
    assert_eq!(finished.attempts, 1, "only a start counts as an attempt");

    assert!(matches!(
        s.reviews
            .update_file(ReviewFileId::new_v4(), progress(FileStatus::Failed))
            .await,
        Err(RepoError::NotFound)
    ));
}

async fn comments_are_stored_and_marked_posted(s: &Stores) {
    let (_, review, round) = seed::review_in_first_round(s, 9).await;
    let file = seed::file(s, &review, round, "a.rs").await;
    let placed = [
        seed::comment(file, "a.rs", 1, Severity::Error),
        seed::comment(file, "a.rs", 2, Severity::Info),
    ];
    let ids = s
        .reviews
        .add_comments(review.id, round, &placed)
        .await
        .unwrap();
    assert_eq!(ids.len(), 2);
    assert!(
        s.reviews
            .add_comments(review.id, round, &[])
            .await
            .unwrap()
            .is_empty()
    );

    s.reviews.mark_posted(ids[0], Some("disc-1")).await.unwrap();
    s.reviews.mark_posted(ids[1], None).await.unwrap();
    let (comments, _) = s
        .review_queries
        .comments(review.id, None, None, 10, 0)
        .await
        .unwrap();
    let by_id = |id| comments.iter().find(|c| c.id == id).unwrap();
    let (first, second) = (by_id(ids[0]), by_id(ids[1]));
    assert_eq!((first.line_number, first.severity.as_str()), (1, "error"));
    assert_eq!(first.gitlab_discussion_id.as_deref(), Some("disc-1"));
    assert_eq!((second.line_number, second.severity.as_str()), (2, "info"));
    assert_eq!(second.gitlab_discussion_id, None);
    assert!(first.posted_at.is_some() && second.posted_at.is_some());
    assert_eq!((first.round_number, first.review_id), (1, review.id));
}

async fn a_suggestion_is_stored_with_its_comment(s: &Stores) {
    let (_, review, round) = seed::review_in_first_round(s, 10).await;
    let file = seed::file(s, &review, round, "a.rs").await;
    // Code as the author would commit it: indentation, a blank line, backticks.
    let suggestion = Suggestion {
        start_line: 3,
        end_line: 5,
        code: "    let x = foo()?;\n\n    // `x` is checked\n".into(),
    };
    let with = PlacedComment {
        suggestion: Some(suggestion.clone()),
        ..seed::comment(file, "a.rs", 4, Severity::Warning)
    };
    let deletion = PlacedComment {
        suggestion: Some(Suggestion {
            start_line: 7,
            end_line: 7,
            code: String::new(),
        }),
        ..seed::comment(file, "a.rs", 7, Severity::Info)
    };
    let without = seed::comment(file, "a.rs", 9, Severity::Error);
    let ids = s
        .reviews
        .add_comments(review.id, round, &[with, deletion, without])
        .await
        .unwrap();
    let (comments, _) = s
        .review_queries
        .comments(review.id, None, None, 10, 0)
        .await
        .unwrap();
    let by_id = |id| comments.iter().find(|c| c.id == id).unwrap();
    assert_eq!(by_id(ids[0]).suggestion, Some(suggestion));
    assert_eq!(
        by_id(ids[1]).suggestion.as_ref().map(|s| s.code.as_str()),
        Some(""),
        "empty code (a deletion) is a suggestion, not none"
    );
    assert_eq!(by_id(ids[2]).suggestion, None);
}

async fn fingerprints_are_what_was_said(s: &Stores) {
    let (_, review, one) = seed::review_in_first_round(s, 11).await;
    let file = seed::file(s, &review, one, "a.rs").await;
    let (posted, kept) = (
        seed::comment(file, "a.rs", 1, Severity::Error),
        seed::comment(file, "a.rs", 2, Severity::Info),
    );
    let ids = s
        .reviews
        .add_comments(review.id, one, &[posted.clone(), kept.clone()])
        .await
        .unwrap();
    s.reviews.mark_posted(ids[0], Some("d")).await.unwrap();
    let set = |fps: &[&str]| fps.iter().map(|f| (*f).to_owned()).collect::<HashSet<_>>();
    assert_eq!(
        s.reviews.fingerprints(review.id).await.unwrap(),
        set(&[&posted.fingerprint]),
        "an unfinished round counts only what it posted"
    );
    s.reviews
        .finish(review.id, one, "h1", seed::completed(Rating::B, 80, 2))
        .await
        .unwrap();
    let said = set(&[&posted.fingerprint, &kept.fingerprint]);
    assert_eq!(s.reviews.fingerprints(review.id).await.unwrap(), said);

    let two = seed::second_round(s, &review, "h2").await;
    let file2 = seed::file(s, &review, two, "b.rs").await;
    let pending = seed::comment(file2, "b.rs", 3, Severity::Warning);
    s.reviews
        .add_comments(review.id, two, &[pending])
        .await
        .unwrap();
    assert_eq!(s.reviews.fingerprints(review.id).await.unwrap(), said);
}

async fn finish_writes_the_outcome(s: &Stores) {
    let (_, review, round) = seed::review_in_first_round(s, 12).await;
    let file = seed::file(s, &review, round, "a.rs").await;
    let placed = [
        seed::comment(file, "a.rs", 1, Severity::Error),
        seed::comment(file, "a.rs", 5, Severity::Warning),
    ];
    s.reviews
        .add_comments(review.id, round, &placed)
        .await
        .unwrap();
    assert_eq!(
        s.reviews.last_completed_round(review.id).await.unwrap(),
        None
    );
    s.reviews
        .finish(review.id, round, "h1b", seed::completed(Rating::B, 82, 2))
        .await
        .unwrap();

    let done = s.reviews.get(review.id).await.unwrap();
    assert_eq!(done.status, ReviewStatus::Completed);
    assert_eq!(
        (done.head_commit_sha.as_str(), done.round_number),
        ("h1b", 1)
    );
    assert_eq!(
        (done.comment_count, done.summary_comment_id.as_deref()),
        (2, Some("note-1"))
    );
    let detail = s.review_queries.detail(review.id).await.unwrap();
    assert_eq!(detail.item.overall_rating, Some(Rating::B));
    assert_eq!(detail.item.summary.as_deref(), Some("Rated B"));
    assert_eq!((detail.score, detail.reviewed_lines), (Some(82), 40));
    assert_eq!(detail.applied_rule_ids, ["rule-1"]);
    assert!(detail.item.completed_at.is_some());
    let rounds = s.review_queries.rounds(review.id).await.unwrap();
    assert_eq!((rounds[0].file_count, rounds[0].comment_count), (1, 2));
    assert!(rounds[0].completed_at.is_some());
    assert_eq!(
        s.reviews.last_completed_round(review.id).await.unwrap(),
        Some((1, "h1".to_owned())),
        "the round keeps the head it started on"
    );

    s.reviews.add_comment_count(review.id, 3).await.unwrap();
    assert_eq!(s.reviews.get(review.id).await.unwrap().comment_count, 5);
    let outcome = seed::completed(Rating::A, 99, 0);
    assert!(matches!(
        s.reviews
            .finish(ReviewId::new_v4(), round, "h1", outcome)
            .await,
        Err(RepoError::NotFound)
    ));
}

async fn a_failed_round_is_not_completed(s: &Stores) {
    let project = seed::project(s).await;
    let review = seed::finished_review(s, &project, seed::completed(Rating::C, 60, 0)).await;
    let two = seed::second_round(s, &review, "head2").await;
    s.reviews
        .finish(review.id, two, "head2", seed::failed("model timed out"))
        .await
        .unwrap();
    let failed = s.review_queries.detail(review.id).await.unwrap();
    assert_eq!(failed.item.status, ReviewStatus::Failed);
    assert_eq!(failed.error_message.as_deref(), Some("model timed out"));
    assert_eq!(
        s.reviews.last_completed_round(review.id).await.unwrap(),
        Some((1, "head1".to_owned()))
    );

    seed::second_round(s, &review, "head2").await;
    let retried = s.review_queries.detail(review.id).await.unwrap();
    assert_eq!(
        (retried.item.status.as_str(), retried.error_message),
        ("pending", None)
    );
}

async fn ai_calls_are_logged(s: &Stores) {
    let project = seed::project(s).await;
    let review = seed::review(s, &project, 13, "h1").await;
    let call = |review_id, success| AiCallRecord {
        review_id,
        file_path: Some("a.rs".into()),
        provider: "providerA".into(),
        model: "model-1".into(),
        success,
        duration_ms: 1200,
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        cached_tokens: 64,
        cost_usd: Some(0.000_45),
        error_message: (!success).then(|| "rate limited".into()),
    };
    s.reviews
        .log_ai_call(call(Some(review.id), false))
        .await
        .unwrap();
    s.reviews.log_ai_call(call(None, true)).await.unwrap();
    let (logs, total) = s
        .review_queries
        .ai_logs(review.id, None, None, 10, 0)
        .await
        .unwrap();
    assert_eq!(total, 1);
    let log = &logs[0];
    assert_eq!(
        (log.status.as_str(), log.duration_ms, log.total_tokens),
        ("failed", 1200, 120)
    );
    assert_eq!(log.error_message.as_deref(), Some("rate limited"));
    assert_eq!(
        log.cached_tokens, 64,
        "the provider's cached tokens are kept"
    );
    assert_eq!(
        log.cost_usd,
        Some(0.000_45),
        "the cost is stored as computed"
    );
}

/// What each file's review was given, and what gathering the round's context
/// cost, are read back as written; a progress update without a context keeps
/// the one recorded.
async fn context_is_kept_with_files_and_rounds(s: &Stores) {
    use reviewd_domain::context::{ContextReport, ContextStats, PieceKind, PieceReport};
    let project = seed::project(s).await;
    let review = seed::review(s, &project, 14, "h1").await;
    let round = s
        .reviews
        .start_round(review.id, 1, false, None, "h1")
        .await
        .unwrap();
    let file = s
        .reviews
        .add_file(
            review.id,
            round,
            NewReviewFile {
                file_path: "src/app.py".into(),
                old_path: None,
                change_type: ChangeType::Modified,
                status: FileStatus::Pending,
            },
        )
        .await
        .unwrap();
    let report = ContextReport {
        tokens: 420,
        budget: 6_000,
        pieces: vec![PieceReport {
            kind: PieceKind::Definition,
            path: "src/users.py".into(),
            symbol: Some("find_user".into()),
            start_line: 3,
            end_line: 9,
            tokens: 80,
            reason: "defines function `find_user`, used by the changed lines".into(),
        }],
        dropped: 2,
        masked: 1,
        tools: vec![reviewd_domain::review::tools::ToolEvidence {
            tool: "ruff".into(),
            rule: "F401".into(),
            line: 4,
            severity: reviewd_domain::model::grade::Severity::Warning,
            message: "`os` imported but unused".into(),
            outcome: reviewd_domain::review::tools::Outcome::Dismissed,
            reason: Some("re-exported".into()),
        }],
    };
    s.reviews
        .update_file(
            file,
            FileProgress {
                context: Some(report.clone()),
                ..progress(FileStatus::Completed)
            },
        )
        .await
        .unwrap();
    s.reviews
        .update_file(file, progress(FileStatus::Completed))
        .await
        .unwrap();
    assert_eq!(file_item(s, review.id, file).await.context, Some(report));

    let stats = ContextStats {
        mode: "full".into(),
        source: "hostA API".into(),
        calls: 3,
        bytes: 52_000,
        indexed_files: 120,
        guidance: vec!["AGENTS.md".into()],
        ..ContextStats::default()
    };
    s.reviews
        .record_round_context(round.id, &stats)
        .await
        .unwrap();
    let rounds = s.review_queries.rounds(review.id).await.unwrap();
    let kept = rounds.iter().find(|r| r.id == round.id).unwrap();
    assert_eq!(kept.context.as_ref(), Some(&stats));
    assert!(matches!(
        s.reviews.record_round_context(Uuid::new_v4(), &stats).await,
        Err(RepoError::NotFound)
    ));
}
