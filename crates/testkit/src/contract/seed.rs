//! Rows the suites need before the port under test can be called, made through
//! the ports themselves so they work on every implementation. Values are unique per
//! call, so cases sharing one store do not see each other's rows.

use super::Stores;
use chrono::{DateTime, SubsecRound, Utc};
use reviewd_domain::model::diff::ChangeType;
use reviewd_domain::model::grade::{Rating, Severity};
use reviewd_domain::model::review::FileStatus;
use reviewd_domain::model::review::{
    AiCallRecord, NewReview, NewReviewFile, PlacedComment, Review, ReviewOutcome, ReviewStatus,
    RoundRef,
};
use reviewd_domain::model::{
    AiConfig, AiProviderKind, AuthType, NewAiConfig, NewApiKey, NewPlatformConfig, NewReviewTask,
    NewSession, NewUser, PlatformConfig, PlatformProject, PlatformType, Project, ReviewTask, Role,
    SecretString, Session, TriggeredBy, User,
};
use reviewd_domain::model::{ReviewFileId, ReviewId};
use reviewd_domain::ports::TaskInsert;
use uuid::Uuid;

/// A short value no other call returns, for names and paths.
#[must_use]
pub fn unique() -> String {
    Uuid::new_v4().simple().to_string()[..12].to_owned()
}

/// An enabled config of the type with a token, under a unique name.
#[must_use]
pub fn new_platform_config(platform_type: PlatformType, is_default: bool) -> NewPlatformConfig {
    NewPlatformConfig {
        name: format!("{platform_type}-{}", unique()),
        platform_type,
        base_url: "https://gitlab.example.com".into(),
        auth_type: AuthType::Token,
        access_token: Some(SecretString::new("glpat-secret")),
        app_id: None,
        app_secret: None,
        webhook_secret: None,
        token_scopes: vec!["api".into()],
        enabled: true,
        is_default,
        private_key: None,
        installation_id: None,
    }
}

/// A hostA config with a token (not the default, so it disturbs no other case).
pub async fn platform_config(s: &Stores) -> PlatformConfig {
    s.platform_configs
        .create(new_platform_config(PlatformType::Gitlab, false))
        .await
        .expect("create a platform config")
}

/// An OpenAI-compatible configuration with a key, under a unique name.
#[must_use]
pub fn new_ai_config(is_default: bool) -> NewAiConfig {
    let id = unique();
    NewAiConfig {
        name: format!("ai-{id}"),
        provider: AiProviderKind::OpenAiCompatible,
        endpoint: format!("https://ai-{id}.example.com/v1"),
        api_key: Some(SecretString::new(format!("sk-{id}"))),
        model: "gpt-4o-mini".into(),
        max_concurrency: 4,
        timeout_secs: 90,
        input_price_per_mtok: Some(0.15),
        output_price_per_mtok: Some(0.6),
        is_default,
        fallback_ids: Vec::new(),
    }
}

/// A stored AI configuration (not the default, so it disturbs no other case).
pub async fn ai_config(s: &Stores) -> AiConfig {
    s.ai_configs
        .create(new_ai_config(false))
        .await
        .expect("create an AI configuration")
}

/// What the platform says about a project, with a unique id and path.
#[must_use]
pub fn platform_project() -> PlatformProject {
    let id = unique();
    PlatformProject {
        id: format!("{}", u64::from_str_radix(&id[..8], 16).unwrap_or(1)),
        name: format!("project-{id}"),
        full_path: format!("group/project-{id}"),
        web_url: format!("https://gitlab.example.com/group/project-{id}"),
        default_branch: Some("main".into()),
        visibility: Some("private".into()),
        platform_type: PlatformType::Gitlab,
    }
}

/// A synced project under a config of its own.
pub async fn project(s: &Stores) -> Project {
    let config = platform_config(s).await;
    s.projects
        .upsert_synced(config.id, &platform_project())
        .await
        .expect("sync a project")
}

/// A new task for an MR head, as webhook intake offers it.
#[must_use]
pub fn new_task(project: &Project, mr_iid: i64, head_sha: &str) -> NewReviewTask {
    NewReviewTask {
        triggered_by: TriggeredBy::Auto,
        project_id: project.id,
        mr_iid,
        head_sha: Some(head_sha.into()),
        send_to_platform: true,
        template_id: None,
        requested_by: None,
        max_attempts: 3,
        conversation_id: None,
        full_review: false,
    }
}

/// A queued task for an MR head.
pub async fn task(s: &Stores, project: &Project, mr_iid: i64, head_sha: &str) -> ReviewTask {
    match s.tasks.insert(new_task(project, mr_iid, head_sha)).await {
        Ok((TaskInsert::Created(task), _)) => task,
        other => panic!("expected a new task, got {other:?}"),
    }
}

/// The review record of an MR, as the engine creates it before its first round.
#[must_use]
pub fn new_review(project: &Project, mr_iid: i64, head_sha: &str) -> NewReview {
    NewReview {
        project_id: project.id,
        project_name: project.name.clone(),
        mr_iid,
        mr_title: format!("Change {mr_iid}"),
        mr_url: format!("{}/-/merge_requests/{mr_iid}", project.web_url),
        source_branch: "feature".into(),
        target_branch: "main".into(),
        author_username: Some("alice".into()),
        ai_provider: "providerA".into(),
        ai_model: "model-1".into(),
        triggered_by: TriggeredBy::Auto,
        base_commit_sha: Some("base0".into()),
        head_commit_sha: head_sha.into(),
        start_commit_sha: Some("base0".into()),
    }
}

/// A review of an MR of the project.
pub async fn review(s: &Stores, project: &Project, mr_iid: i64, head_sha: &str) -> Review {
    s.reviews
        .create(new_review(project, mr_iid, head_sha))
        .await
        .expect("create a review")
}

/// Round 1 of the review, on the head it was created with.
pub async fn first_round(s: &Stores, review: &Review) -> RoundRef {
    s.reviews
        .start_round(review.id, 1, false, None, &review.head_commit_sha)
        .await
        .expect("start round 1")
}

/// Round 2 of the review, differential from the head it was created with to `head`.
pub async fn second_round(s: &Stores, review: &Review, head: &str) -> RoundRef {
    let base = Some(review.head_commit_sha.as_str());
    s.reviews
        .start_round(review.id, 2, true, base, head)
        .await
        .expect("start round 2")
}

/// A review of an MR (head `h1`) of a new project, in its first round.
pub async fn review_in_first_round(s: &Stores, mr_iid: i64) -> (Project, Review, RoundRef) {
    let project = project(s).await;
    let review = review(s, &project, mr_iid, "h1").await;
    let round = first_round(s, &review).await;
    (project, review, round)
}

/// A pending file of a round.
pub async fn file(s: &Stores, review: &Review, round: RoundRef, path: &str) -> ReviewFileId {
    s.reviews
        .add_file(
            review.id,
            round,
            NewReviewFile {
                file_path: path.into(),
                old_path: None,
                change_type: ChangeType::Modified,
                status: FileStatus::Pending,
            },
        )
        .await
        .expect("add a file")
}

/// A comment on a line of a stored file.
#[must_use]
pub fn comment(file_id: ReviewFileId, path: &str, line: u32, severity: Severity) -> PlacedComment {
    PlacedComment {
        file_id,
        file_path: path.into(),
        old_path: None,
        line,
        severity,
        message: format!("{severity:?} at {path}:{line}"),
        fingerprint: format!("{path}:{line}:{}", severity.as_str()),
        suggestion: None,
    }
}

/// What a completed round leaves: a rating, a score and the comment count.
#[must_use]
pub fn completed(rating: Rating, score: u32, comment_count: i32) -> ReviewOutcome {
    ReviewOutcome {
        status: ReviewStatus::Completed,
        rating: Some(rating),
        score: Some(score),
        summary: Some(format!("Rated {rating}")),
        comment_count,
        reviewed_lines: 40,
        summary_comment_id: Some("note-1".into()),
        error_message: None,
        applied_rule_ids: vec!["rule-1".into()],
    }
}

/// What a failed round leaves.
#[must_use]
pub fn failed(error: &str) -> ReviewOutcome {
    ReviewOutcome {
        status: ReviewStatus::Failed,
        rating: None,
        score: None,
        summary: None,
        comment_count: 0,
        reviewed_lines: 0,
        summary_comment_id: None,
        error_message: Some(error.into()),
        applied_rule_ids: Vec::new(),
    }
}

/// A review of a new MR with one round finished as `outcome`.
pub async fn finished_review(s: &Stores, project: &Project, outcome: ReviewOutcome) -> Review {
    let mr_iid = i64::from(u16::from_str_radix(&unique()[..4], 16).unwrap_or(1));
    let review = review(s, project, mr_iid, "head1").await;
    let round = first_round(s, &review).await;
    s.reviews
        .finish(review.id, round, "head1", outcome)
        .await
        .expect("finish the round");
    s.reviews.get(review.id).await.expect("the finished review")
}

/// A runner's registration with a unique id (no API key: the key would have to exist).
#[must_use]
pub fn registration(
    max_concurrent_jobs: i32,
    tags: &[&str],
) -> reviewd_domain::model::runner::RunnerRegistration {
    let id = format!("runner-{}", unique());
    reviewd_domain::model::runner::RunnerRegistration {
        name: id.clone(),
        id,
        version: "1.0.0".into(),
        max_concurrent_jobs,
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        api_key_id: None,
    }
}

/// A registered runner, online.
pub async fn runner(
    s: &Stores,
    max_concurrent_jobs: i32,
    tags: &[&str],
) -> reviewd_domain::model::runner::Runner {
    s.runners
        .upsert(&registration(max_concurrent_jobs, tags))
        .await
        .expect("register a runner")
}

/// Now to the whole second, so that "expires exactly now" survives a store's
/// rounding of timestamps.
#[must_use]
pub fn now() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(0)
}

/// A maintainer with a unique email and the password hash `h`.
#[must_use]
pub fn new_user(is_root: bool) -> NewUser {
    NewUser {
        email: format!("{}@example.com", unique()),
        name: "N".into(),
        password_hash: "h".into(),
        role: Role::Maintainer,
        is_root,
    }
}

/// A maintainer, not root.
pub async fn user(s: &Stores) -> User {
    s.users
        .create(new_user(false))
        .await
        .expect("create a user")
}

/// A session of `user_id` under a unique token hash, returned with it.
pub async fn session(s: &Stores, user_id: Uuid, expires_at: DateTime<Utc>) -> (Session, String) {
    let token_hash = format!("session-{}", unique());
    let new = NewSession {
        user_id,
        token_hash: token_hash.clone(),
        user_agent: None,
        ip: None,
        expires_at,
    };
    let session = s.sessions.create(new).await.expect("create a session");
    (session, token_hash)
}

/// A key of `user_id` under a unique hash.
#[must_use]
pub fn new_api_key(user_id: Uuid, expires_at: Option<DateTime<Utc>>) -> NewApiKey {
    NewApiKey {
        user_id,
        name: "k".into(),
        prefix: "rvd_abc".into(),
        key_hash: format!("key-{}", unique()),
        expires_at,
    }
}

/// A successful AI call (100 prompt and 20 completion tokens) of the review, or of
/// none, by `model`, costing `cost_usd` (`None`: unpriced).
#[must_use]
pub fn ai_call(review_id: Option<ReviewId>, model: &str, cost_usd: Option<f64>) -> AiCallRecord {
    AiCallRecord {
        review_id,
        file_path: Some("a.rs".into()),
        provider: "Priced".into(),
        model: model.into(),
        success: true,
        duration_ms: 10,
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        cached_tokens: 0,
        cost_usd,
        error_message: None,
    }
}
