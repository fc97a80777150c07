//! The `FeedbackRepository` contract: a posted comment found by its MR and
//! fingerprint, one record per origin (a second sighting updates it), a reaction
//! taken back, the fingerprints a project rejected, and acceptance counted per
//! comment.

use super::{Stores, seed};
use chrono::{TimeZone, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::grade::Severity;
use reviewd_domain::ports::{
    AcceptanceCounts, FeedbackScope, FeedbackSource, NewFeedback, RepoError,
};
use reviewd_domain::review::feedback::TrackingStatus;
use reviewd_domain::review::feedback::{CONCESSION_NOTE, IMPLEMENTED, Signal, verdict};
use uuid::Uuid;

pub async fn run(s: &Stores) {
    feedback_is_recorded_once_per_origin_and_summed_per_comment(s).await;
    a_comment_is_synced_to_what_its_thread_shows_now(s).await;
    comments_await_a_fix_with_their_head_and_are_found_by_recency(s).await;
    judged_comments_come_with_their_round_and_latest_verdict(s).await;
}

fn from(
    comment_id: Uuid,
    signal: Signal<'_>,
    source: FeedbackSource,
    source_id: &str,
    user: Option<&str>,
) -> NewFeedback {
    NewFeedback {
        comment_id,
        verdict: verdict(signal).unwrap(),
        source,
        source_id: source_id.into(),
        username: user.map(str::to_owned),
        note: None,
    }
}

async fn feedback_is_recorded_once_per_origin_and_summed_per_comment(s: &Stores) {
    let (project, review, round) = seed::review_in_first_round(s, 7).await;
    let file = seed::file(s, &review, round, "src/a.rs").await;
    let placed = [
        seed::comment(file, "src/a.rs", 2, Severity::Error),
        seed::comment(file, "src/a.rs", 3, Severity::Warning),
        seed::comment(file, "src/a.rs", 4, Severity::Info),
    ];
    let ids = s
        .reviews
        .add_comments(review.id, round, &placed)
        .await
        .unwrap();
    // Comments 0 and 1 were posted; 2 was not (it cannot get feedback).
    for id in &ids[..2] {
        s.reviews.mark_posted(*id, Some("disc")).await.unwrap();
    }

    let found = s
        .feedback
        .find_posted_comment(project.id, 7, &placed[0].fingerprint)
        .await
        .unwrap()
        .expect("the posted comment");
    assert_eq!(
        (found.comment_id, found.review_id, found.line_number),
        (ids[0], review.id, 2)
    );
    assert_eq!(found.file_path, "src/a.rs");
    for (iid, fingerprint) in [
        (7, placed[2].fingerprint.as_str()),
        (8, placed[0].fingerprint.as_str()),
        (7, "no-such-fingerprint"),
    ] {
        assert_eq!(
            s.feedback
                .find_posted_comment(project.id, iid, fingerprint)
                .await
                .unwrap(),
            None,
            "{iid} {fingerprint}"
        );
    }
    assert_eq!(
        s.feedback
            .find_posted_comment(ProjectId::new_v4(), 7, &placed[0].fingerprint)
            .await
            .unwrap(),
        None
    );

    // Comment 0: a thumbs up seen twice (webhook, then the periodic pass) is one
    // record; a thumbs down by someone else is another.
    let up = from(
        ids[0],
        Signal::Reaction("thumbsup"),
        FeedbackSource::Reaction,
        "thumbsup",
        Some("ana"),
    );
    let first = s.feedback.record(up.clone()).await.unwrap();
    let again = s.feedback.record(up).await.unwrap();
    assert_eq!(first.id, again.id, "one record per origin");
    assert_eq!(
        (first.feedback_type.as_str(), first.tracking_status.as_str()),
        ("positive", "accepted")
    );
    s.feedback
        .record(from(
            ids[0],
            Signal::Reaction("thumbsdown"),
            FeedbackSource::Reaction,
            "thumbsdown",
            Some("bo"),
        ))
        .await
        .unwrap();
    // Comment 1: a won't-fix reply, then edited to "fixed": the same record, updated.
    let reply = s
        .feedback
        .record(from(
            ids[1],
            Signal::Reply("won't fix"),
            FeedbackSource::Reply,
            "note-9",
            Some("ana"),
        ))
        .await
        .unwrap();
    let edited = s
        .feedback
        .record(from(
            ids[1],
            Signal::Reply("fixed"),
            FeedbackSource::Reply,
            "note-9",
            Some("ana"),
        ))
        .await
        .unwrap();
    assert_eq!(reply.id, edited.id);
    assert_eq!(edited.tracking_status, TrackingStatus::Accepted);
    let listed = s.review_queries.feedbacks(review.id).await.unwrap();
    assert_eq!(listed.len(), 3, "{listed:?}");

    assert!(matches!(
        s.feedback
            .record(from(
                Uuid::new_v4(),
                Signal::Resolved,
                FeedbackSource::Resolved,
                "",
                None
            ))
            .await,
        Err(RepoError::NotFound)
    ));

    // Acceptance: comment 0 is a tie (accepted), comment 1 accepted.
    let counts = |scope| async move { s.feedback.acceptance(scope).await.unwrap() };
    let both = AcceptanceCounts {
        judged: 2,
        helped: 2,
    };
    assert_eq!(counts(FeedbackScope::Review(review.id)).await, both);
    assert_eq!(counts(FeedbackScope::Project(project.id)).await, both);
    assert_eq!(
        counts(FeedbackScope::Project(ProjectId::new_v4())).await,
        AcceptanceCounts::default()
    );

    // Taking the thumbs up back leaves comment 0 rejected.
    assert!(
        s.feedback
            .withdraw(ids[0], FeedbackSource::Reaction, "thumbsup", Some("ana"))
            .await
            .unwrap()
    );
    assert!(
        !s.feedback
            .withdraw(ids[0], FeedbackSource::Reaction, "thumbsup", Some("ana"))
            .await
            .unwrap(),
        "nothing left to take back"
    );
    assert_eq!(
        counts(FeedbackScope::Review(review.id)).await,
        AcceptanceCounts {
            judged: 2,
            helped: 1
        }
    );
    // A later round changed its line: implemented outweighs the rejection.
    s.feedback
        .record(NewFeedback {
            comment_id: ids[0],
            verdict: IMPLEMENTED,
            source: FeedbackSource::Implemented,
            source_id: String::new(),
            username: None,
            note: None,
        })
        .await
        .unwrap();
    assert_eq!(counts(FeedbackScope::Review(review.id)).await, both);

    // Rejections by fingerprint: one so far for comment 0's; a second one (a user
    // on another review of the project, same fingerprint) makes 2.
    let files = &["src/a.rs".to_owned()];
    let rejected = || async move {
        s.feedback
            .rejected_findings(project.id, files)
            .await
            .unwrap()
    };
    let once = rejected().await;
    assert_eq!(once.len(), 1, "{once:?}");
    assert_eq!(once[0].fingerprint, placed[0].fingerprint);
    assert_eq!(
        (once[0].file_path.as_str(), once[0].message.as_str()),
        ("src/a.rs", placed[0].message.as_str()),
        "what the finding said, to recognise it reworded"
    );
    assert_eq!((once[0].rejections, once[0].conceded), (1, false));
    // bo says it twice (a 👎 and a reply): still one rejection.
    s.feedback
        .record(from(
            ids[0],
            Signal::Reply("won't fix"),
            FeedbackSource::Reply,
            "note-77",
            Some("bo"),
        ))
        .await
        .unwrap();
    assert_eq!(
        rejected().await[0].rejections,
        1,
        "one per comment and user"
    );
    let later = seed::review(s, &project, 9, "h1").await;
    let later_round = seed::first_round(s, &later).await;
    let later_file = seed::file(s, &later, later_round, "src/a.rs").await;
    let same = seed::comment(later_file, "src/a.rs", 2, Severity::Error);
    let later_ids = s
        .reviews
        .add_comments(later.id, later_round, &[same])
        .await
        .unwrap();
    s.reviews.mark_posted(later_ids[0], None).await.unwrap();
    s.feedback
        .record(from(
            later_ids[0],
            Signal::Reaction("-1"),
            FeedbackSource::Reaction,
            "-1",
            Some("cy"),
        ))
        .await
        .unwrap();
    let twice = rejected().await;
    assert_eq!(twice.len(), 1);
    assert_eq!((twice[0].rejections, twice[0].conceded), (2, false));
    // reviewd conceded the finding in a thread: settled.
    s.feedback
        .record(NewFeedback {
            comment_id: later_ids[0],
            verdict: reviewd_domain::review::feedback::REJECTED,
            source: FeedbackSource::Reply,
            source_id: "answer-1".into(),
            username: Some("reviewd-bot".into()),
            note: Some(CONCESSION_NOTE.into()),
        })
        .await
        .unwrap();
    let conceded = rejected().await;
    assert_eq!((conceded[0].rejections, conceded[0].conceded), (3, true));
    assert!(
        s.feedback
            .rejected_findings(ProjectId::new_v4(), files)
            .await
            .unwrap()
            .is_empty(),
        "another project's"
    );
    assert!(
        s.feedback
            .rejected_findings(project.id, &["src/b.rs".to_owned()])
            .await
            .unwrap()
            .is_empty(),
        "another file's"
    );
}

async fn a_comment_is_synced_to_what_its_thread_shows_now(s: &Stores) {
    let (_, review, round) = seed::review_in_first_round(s, 11).await;
    let file = seed::file(s, &review, round, "src/b.rs").await;
    let ids = s
        .reviews
        .add_comments(
            review.id,
            round,
            &[seed::comment(file, "src/b.rs", 5, Severity::Error)],
        )
        .await
        .unwrap();
    s.reviews.mark_posted(ids[0], Some("d")).await.unwrap();
    let platform_sources = [
        FeedbackSource::Reaction,
        FeedbackSource::Reply,
        FeedbackSource::Resolved,
    ];
    let thumbs = |user: &str| {
        from(
            ids[0],
            Signal::Reaction("thumbsup"),
            FeedbackSource::Reaction,
            "thumbsup",
            Some(user),
        )
    };
    let resolved = from(
        ids[0],
        Signal::Resolved,
        FeedbackSource::Resolved,
        "",
        Some("bo"),
    );
    // First sight: two thumbs up and a resolved thread; a later round implemented it.
    s.feedback
        .record(NewFeedback {
            comment_id: ids[0],
            verdict: IMPLEMENTED,
            source: FeedbackSource::Implemented,
            source_id: String::new(),
            username: None,
            note: None,
        })
        .await
        .unwrap();
    let withdrawn = s
        .feedback
        .sync_comment(
            ids[0],
            &platform_sources,
            vec![thumbs("ana"), thumbs("bo"), resolved.clone()],
        )
        .await
        .unwrap();
    assert_eq!(withdrawn, 0);
    assert_eq!(
        s.review_queries.feedbacks(review.id).await.unwrap().len(),
        4
    );
    // Now: bo took the thumbs up back and the thread was reopened.
    let withdrawn = s
        .feedback
        .sync_comment(ids[0], &platform_sources, vec![thumbs("ana")])
        .await
        .unwrap();
    assert_eq!(withdrawn, 2, "bo's reaction and the resolution");
    let mut left: Vec<(String, Option<String>)> = s
        .review_queries
        .feedbacks(review.id)
        .await
        .unwrap()
        .into_iter()
        .map(|f| (f.tracking_status.to_string(), f.username))
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            ("accepted".to_owned(), Some("ana".to_owned())),
            ("implemented".to_owned(), None)
        ],
        "implemented is not a platform source: a sync leaves it"
    );
    assert!(matches!(
        s.feedback
            .sync_comment(Uuid::new_v4(), &platform_sources, vec![])
            .await,
        Err(RepoError::NotFound)
    ));
}

async fn comments_await_a_fix_with_their_head_and_are_found_by_recency(s: &Stores) {
    let (project, review, first) = seed::review_in_first_round(s, 12).await;
    let file = seed::file(s, &review, first, "src/c.rs").await;
    let in_first = s
        .reviews
        .add_comments(
            review.id,
            first,
            &[
                seed::comment(file, "src/c.rs", 1, Severity::Error),
                seed::comment(file, "src/c.rs", 2, Severity::Warning),
            ],
        )
        .await
        .unwrap();
    s.reviews.mark_posted(in_first[0], None).await.unwrap();
    let second = seed::second_round(s, &review, "h2").await;
    let second_file = seed::file(s, &review, second, "src/c.rs").await;
    let in_second = s
        .reviews
        .add_comments(
            review.id,
            second,
            &[seed::comment(second_file, "src/c.rs", 9, Severity::Error)],
        )
        .await
        .unwrap();
    s.reviews.mark_posted(in_second[0], None).await.unwrap();

    let awaiting = || async move {
        s.feedback
            .awaiting_fix(review.id)
            .await
            .unwrap()
            .into_iter()
            .map(|(head, t)| (head, t.comment_id, t.line_number))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        awaiting().await,
        [
            ("h1".to_owned(), in_first[0], 1),
            ("h2".to_owned(), in_second[0], 9)
        ],
        "posted ones only, with their round's head"
    );
    s.feedback
        .record(NewFeedback {
            comment_id: in_first[0],
            verdict: IMPLEMENTED,
            source: FeedbackSource::Implemented,
            source_id: String::new(),
            username: None,
            note: None,
        })
        .await
        .unwrap();
    assert_eq!(
        awaiting().await,
        [("h2".to_owned(), in_second[0], 9)],
        "an implemented comment awaits nothing"
    );
    assert!(
        s.feedback
            .awaiting_fix(ReviewId::new_v4())
            .await
            .unwrap()
            .is_empty()
    );

    // An MR whose review posted nothing is not read by the pass.
    let quiet = seed::review(s, &project, 13, "h1").await;
    seed::first_round(s, &quiet).await;
    let long_ago = Utc.with_ymd_and_hms(2000, 1, 1, 0, 0, 0).unwrap();
    let recent = s.feedback.commented_since(long_ago, 1000).await.unwrap();
    assert!(recent.contains(&(project.id, 12)), "{recent:?}");
    assert!(!recent.contains(&(project.id, 13)));
    assert_eq!(
        recent.iter().filter(|m| **m == (project.id, 12)).count(),
        1,
        "one entry per MR"
    );
    assert_eq!(
        s.feedback.commented_since(long_ago, 1).await.unwrap().len(),
        1
    );
    let future = Utc.with_ymd_and_hms(2999, 1, 1, 0, 0, 0).unwrap();
    assert!(
        s.feedback
            .commented_since(future, 10)
            .await
            .unwrap()
            .is_empty()
    );
}

/// What `reviewd export-eval` reads: the rounds with judged comments, each
/// comment with its latest verdict; comments nobody judged and other projects'
/// are left out.
async fn judged_comments_come_with_their_round_and_latest_verdict(s: &Stores) {
    let (project, review, round) = seed::review_in_first_round(s, 31).await;
    let file = seed::file(s, &review, round, "src/a.rs").await;
    let placed = [
        seed::comment(file, "src/a.rs", 2, Severity::Error),
        seed::comment(file, "src/a.rs", 5, Severity::Warning),
        seed::comment(file, "src/a.rs", 9, Severity::Info),
    ];
    let ids = s
        .reviews
        .add_comments(review.id, round, &placed)
        .await
        .unwrap();
    for id in &ids {
        s.reviews.mark_posted(*id, Some("disc")).await.unwrap();
    }
    let thumbs = |id, emoji, user: &str| {
        from(
            id,
            Signal::Reaction(emoji),
            FeedbackSource::Reaction,
            user,
            Some(user),
        )
    };
    s.feedback
        .record(thumbs(ids[0], "thumbsup", "ann"))
        .await
        .unwrap();
    s.feedback
        .record(thumbs(ids[1], "thumbsdown", "bob"))
        .await
        .unwrap();
    let (other, other_review, other_round) = seed::review_in_first_round(s, 32).await;
    let other_file = seed::file(s, &other_review, other_round, "b.rs").await;
    let elsewhere = s
        .reviews
        .add_comments(
            other_review.id,
            other_round,
            &[seed::comment(other_file, "b.rs", 1, Severity::Error)],
        )
        .await
        .unwrap();
    s.feedback
        .record(thumbs(elsewhere[0], "thumbsup", "ann"))
        .await
        .unwrap();

    let judged = s
        .review_queries
        .judged_rounds(project.id, 10)
        .await
        .unwrap();
    assert_eq!(judged.len(), 1, "{judged:?}");
    let r = &judged[0];
    assert_eq!((r.review_id, r.mr_iid, r.round_number), (review.id, 31, 1));
    assert_eq!(r.head_sha, review.head_commit_sha);
    let verdicts: Vec<(&str, i32, &str)> = r
        .comments
        .iter()
        .map(|c| (c.file_path.as_str(), c.line, c.verdict.as_str()))
        .collect();
    assert_eq!(
        verdicts,
        [("src/a.rs", 2, "accepted"), ("src/a.rs", 5, "rejected")],
        "the unjudged comment on line 9 is left out"
    );
    assert_ne!(other.id, project.id);
    assert!(
        s.review_queries
            .judged_rounds(project.id, 0)
            .await
            .unwrap()
            .is_empty()
    );
}
