//! The `ProjectRepository` contract: a sync refreshes the platform's fields and
//! keeps the user's settings; lists search, filter and page with totals; stats and
//! the activity reads see the reviews and tasks of the store.

use super::{Stores, seed};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::grade::Rating;
use reviewd_domain::model::review::ReviewStatus;
use reviewd_domain::model::runner::RunnerRegistration;
use reviewd_domain::model::{
    PipelineFilter, PlatformConfig, PlatformType, Project, ProjectFilter, ProjectSettingsChanges,
    WebhookState, WebhookStatus, WebhookStatusFilter,
};
use reviewd_domain::model::{TaskStatus, TriggeredBy};
use reviewd_domain::ports::{RepoError, TemplateChanges};
use reviewd_domain::{Page, PageRequest};
use std::collections::BTreeSet;
use std::time::Duration;
use uuid::Uuid;

pub async fn run(s: &Stores) {
    // First: its runner claims the oldest queued task of the store.
    pipelines_are_newest_first_and_filtered(s).await;
    a_sync_refreshes_platform_fields_and_keeps_settings(s).await;
    a_platform_project_is_one_project_per_config(s).await;
    settings_changes_and_webhook_state(s).await;
    list_searches_filters_and_pages(s).await;
    stats_count_projects_and_reviews(s).await;
    recent_reviews_are_newest_first(s).await;
    delete_and_delete_many(s).await;
    budgets_count_this_projects_calls_and_alert_once_a_month(s).await;
}

/// The reads behind monthly budgets: a project's spending since an instant (its
/// reviews' priced calls only), a budget kept and removed, and each month's alert
/// claimed once.
async fn budgets_count_this_projects_calls_and_alert_once_a_month(s: &Stores) {
    let (mine, theirs) = (seed::project(s).await, seed::project(s).await);
    let a = seed::review(s, &mine, 91, "h1").await;
    let b = seed::review(s, &mine, 92, "h1").await;
    let other = seed::review(s, &theirs, 91, "h1").await;
    for (review, cost) in [
        (a.id, Some(0.25)),
        (b.id, Some(0.5)),
        (b.id, None),
        (other.id, Some(4.0)),
    ] {
        s.reviews
            .log_ai_call(seed::ai_call(Some(review), "m-1", cost))
            .await
            .unwrap();
    }
    // Around the calls as the store dates them (a real store's clock is not ours).
    let (logged, _) = s
        .review_queries
        .ai_logs(a.id, None, None, 1, 0)
        .await
        .unwrap();
    let since = logged[0].created_at - chrono::TimeDelta::hours(1);
    let later = logged[0].created_at + chrono::TimeDelta::hours(1);
    assert_eq!(s.projects.cost_since(mine.id, since).await.unwrap(), 0.75);
    assert_eq!(s.projects.cost_since(theirs.id, since).await.unwrap(), 4.0);
    assert_eq!(s.projects.cost_since(mine.id, later).await.unwrap(), 0.0);
    assert_eq!(
        s.projects
            .cost_since(ProjectId::new_v4(), since)
            .await
            .unwrap(),
        0.0
    );

    let budget = |v| ProjectSettingsChanges {
        monthly_budget_usd: Some(v),
        ..ProjectSettingsChanges::default()
    };
    let set = s.projects.update_settings(mine.id, budget(Some(0.5))).await;
    assert_eq!(set.unwrap().monthly_budget_usd, Some(0.5));
    let unchanged = s
        .projects
        .update_settings(mine.id, ProjectSettingsChanges::default())
        .await;
    assert_eq!(unchanged.unwrap().monthly_budget_usd, Some(0.5));
    let removed = s.projects.update_settings(mine.id, budget(None)).await;
    assert_eq!(removed.unwrap().monthly_budget_usd, None);
    assert!(
        s.projects
            .update_settings(mine.id, budget(Some(-1.0)))
            .await
            .is_err(),
        "the store refuses a negative budget"
    );

    let month = |m| chrono::NaiveDate::from_ymd_opt(2026, m, 1).unwrap();
    assert!(
        s.projects
            .claim_budget_alert(mine.id, month(11))
            .await
            .unwrap()
    );
    assert!(
        !s.projects
            .claim_budget_alert(mine.id, month(11))
            .await
            .unwrap()
    );
    assert!(
        !s.projects
            .claim_budget_alert(mine.id, month(10))
            .await
            .unwrap(),
        "an earlier month never alerts again"
    );
    assert!(
        s.projects
            .claim_budget_alert(theirs.id, month(11))
            .await
            .unwrap()
    );
    assert!(
        s.projects
            .claim_budget_alert(mine.id, month(12))
            .await
            .unwrap()
    );
    assert!(matches!(
        s.projects
            .claim_budget_alert(ProjectId::new_v4(), month(12))
            .await,
        Err(RepoError::NotFound)
    ));

    // Notes: one claim per MR and month, given back when the note failed.
    let note = |iid, m| async move { s.projects.claim_budget_note(mine.id, iid, month(m)).await };
    assert!(note(5, 11).await.unwrap());
    assert!(
        !note(5, 11).await.unwrap(),
        "the second webhook does not post"
    );
    assert!(note(6, 11).await.unwrap(), "another MR");
    assert!(note(5, 12).await.unwrap(), "another month");
    s.projects
        .release_budget_note(mine.id, 5, month(11))
        .await
        .unwrap();
    assert!(
        note(5, 11).await.unwrap(),
        "claimable again once given back"
    );
    assert!(
        s.projects
            .claim_budget_note(ProjectId::new_v4(), 5, month(11))
            .await
            .is_err(),
        "an unknown project"
    );
}

fn page(n: u32, size: u32) -> PageRequest {
    PageRequest::new(n, size, 100)
}

async fn sync(s: &Stores, config: &PlatformConfig, path: &str) -> Project {
    let mut p = seed::platform_project();
    p.name = path.rsplit('/').next().unwrap().to_owned();
    p.full_path = path.to_owned();
    s.projects.upsert_synced(config.id, &p).await.unwrap()
}

async fn a_sync_refreshes_platform_fields_and_keeps_settings(s: &Stores) {
    let config = seed::platform_config(s).await;
    let mut platform = seed::platform_project();
    let first = s
        .projects
        .upsert_synced(config.id, &platform)
        .await
        .unwrap();
    assert!(first.enabled);
    assert_eq!(first.platform_project_id, platform.id);
    assert_eq!(first.auto_review, None, "settings start inherited");
    assert!(
        first.suppress_rejected,
        "rejected comments are left out by default"
    );
    assert!(
        first.refuse_outsiders,
        "outsiders are refused once by default"
    );
    assert!(first.gate_enabled, "the merge gate is posted by default");
    assert_eq!(first.gate_min_rating, None);
    assert!(first.last_synced_at.is_some());

    s.projects
        .update_settings(
            first.id,
            ProjectSettingsChanges {
                enabled: Some(false),
                auto_review: Some(Some(false)),
                file_ignore_patterns: Some(Some(vec!["*.snap".into()])),
                ai_config_id: Some(None),
                default_reviewer_ids: Some(vec!["7".into()]),
                auto_assign_author: Some(true),
                monthly_budget_usd: Some(Some(12.5)),
                suppress_rejected: Some(false),
                refuse_outsiders: Some(false),
                gate_enabled: Some(false),
                gate_min_rating: Some(Some(Rating::C)),
                context_budget_tokens: Some(Some(9_000)),
            },
        )
        .await
        .unwrap();
    let hook = WebhookState {
        webhook_id: Some("h1".into()),
        webhook_url: Some("https://reviewd.example.com/hook".into()),
        status: Some(WebhookStatus::Active),
    };
    s.projects.set_webhook(first.id, hook).await.unwrap();

    platform.name = "renamed".into();
    platform.full_path = "group/renamed".into();
    platform.web_url = "https://gitlab.example.com/group/renamed".into();
    platform.default_branch = Some("trunk".into());
    platform.visibility = Some("internal".into());
    let again = s
        .projects
        .upsert_synced(config.id, &platform)
        .await
        .unwrap();
    assert_eq!(again.id, first.id);
    assert_eq!(
        (
            again.name.as_str(),
            again.full_path.as_str(),
            again.web_url.as_str()
        ),
        ("renamed", "group/renamed", platform.web_url.as_str())
    );
    assert_eq!(again.default_branch.as_deref(), Some("trunk"));
    assert_eq!(again.visibility.as_deref(), Some("internal"));
    assert!(!again.enabled);
    assert_eq!(again.auto_review, Some(false));
    assert_eq!(again.file_ignore_patterns, Some(vec!["*.snap".to_owned()]));
    assert_eq!(again.default_reviewer_ids, vec!["7".to_owned()]);
    assert!(again.auto_assign_author);
    assert_eq!(again.monthly_budget_usd, Some(12.5));
    assert!(!again.suppress_rejected);
    assert!(!again.refuse_outsiders);
    assert_eq!(
        (again.gate_enabled, again.gate_min_rating),
        (false, Some(Rating::C))
    );
    assert_eq!(
        again.context_budget_tokens,
        Some(9_000),
        "kept across syncs"
    );
    assert_eq!(again.webhook_status, Some(WebhookStatus::Active));
    assert_eq!(again.created_at, first.created_at);
    assert!(again.last_synced_at >= first.last_synced_at);
    assert_eq!(s.projects.get(first.id).await.unwrap(), again);

    assert!(matches!(
        s.projects.upsert_synced(Uuid::new_v4(), &platform).await,
        Err(RepoError::NotFound)
    ));
}

async fn a_platform_project_is_one_project_per_config(s: &Stores) {
    let platform = seed::platform_project();
    let a = seed::platform_config(s).await;
    let b = seed::platform_config(s).await;
    let in_a = s.projects.upsert_synced(a.id, &platform).await.unwrap();
    let in_b = s.projects.upsert_synced(b.id, &platform).await.unwrap();
    assert_ne!(in_a.id, in_b.id);
    let found: BTreeSet<ProjectId> = s
        .projects
        .find_by_platform(PlatformType::Gitlab, &platform.id)
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(found, BTreeSet::from([in_a.id, in_b.id]));
    assert!(
        s.projects
            .find_by_platform(PlatformType::Github, &platform.id)
            .await
            .unwrap()
            .is_empty()
    );
}

async fn settings_changes_and_webhook_state(s: &Stores) {
    let project = seed::project(s).await;
    let changed = s
        .projects
        .update_settings(
            project.id,
            ProjectSettingsChanges {
                auto_review: Some(Some(true)),
                file_ignore_patterns: Some(Some(vec!["dist/**".into()])),
                ..ProjectSettingsChanges::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(changed.auto_review, Some(true));
    assert!(changed.enabled, "None keeps");
    let inherited = s
        .projects
        .update_settings(
            project.id,
            ProjectSettingsChanges {
                auto_review: Some(None),
                ..ProjectSettingsChanges::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(inherited.auto_review, None, "Some(None) inherits again");
    assert_eq!(
        inherited.file_ignore_patterns,
        Some(vec!["dist/**".to_owned()])
    );
    assert!(
        matches!(
            s.projects
                .update_settings(
                    project.id,
                    ProjectSettingsChanges {
                        ai_config_id: Some(Some(Uuid::new_v4())),
                        ..ProjectSettingsChanges::default()
                    },
                )
                .await,
            Err(RepoError::NotFound)
        ),
        "an unknown AI configuration"
    );
    assert!(matches!(
        s.projects
            .update_settings(ProjectId::new_v4(), ProjectSettingsChanges::default())
            .await,
        Err(RepoError::NotFound)
    ));

    assert_eq!(project.webhook_checked_at, None);
    let state = WebhookState {
        webhook_id: Some("42".into()),
        webhook_url: Some("https://reviewd.example.com/api/webhooks/hostA".into()),
        status: Some(WebhookStatus::Error),
    };
    let hooked = s
        .projects
        .set_webhook(project.id, state.clone())
        .await
        .unwrap();
    assert_eq!(hooked.webhook_id, state.webhook_id);
    assert_eq!(hooked.webhook_url, state.webhook_url);
    assert_eq!(hooked.webhook_status, Some(WebhookStatus::Error));
    assert!(hooked.webhook_checked_at.is_some());
    let cleared = s
        .projects
        .set_webhook(project.id, WebhookState::default())
        .await
        .unwrap();
    assert_eq!((cleared.webhook_id, cleared.webhook_status), (None, None));
    assert!(matches!(
        s.projects.set_webhook(ProjectId::new_v4(), state).await,
        Err(RepoError::NotFound)
    ));
}

fn paths(page: &Page<Project>) -> Vec<&str> {
    page.items.iter().map(|p| p.full_path.as_str()).collect()
}

async fn list_searches_filters_and_pages(s: &Stores) {
    let config = seed::platform_config(s).await;
    let token = seed::unique();
    let alpha = sync(s, &config, &format!("grp/{token}-alpha")).await;
    let beta = sync(s, &config, &format!("grp/{token}-beta")).await;
    // Found by its path only: the name does not hold the token.
    let mut gamma = seed::platform_project();
    gamma.name = "gamma".into();
    gamma.full_path = format!("grp/{token}-gamma/gamma");
    let gamma = s.projects.upsert_synced(config.id, &gamma).await.unwrap();
    let of_config = ProjectFilter {
        platform_config_id: Some(config.id),
        ..ProjectFilter::default()
    };

    let all = s.projects.list(&of_config, page(1, 2)).await.unwrap();
    assert_eq!(all.total, 3);
    assert_eq!(
        paths(&all),
        vec![alpha.full_path.as_str(), beta.full_path.as_str()]
    );
    let second = s.projects.list(&of_config, page(2, 2)).await.unwrap();
    assert_eq!(
        (second.total, paths(&second)),
        (3, vec![gamma.full_path.as_str()])
    );

    let search = |text: &str| ProjectFilter {
        search: Some(text.to_owned()),
        ..of_config.clone()
    };
    let found = s
        .projects
        .list(
            &search(&format!("  {}  ", token.to_uppercase())),
            page(1, 10),
        )
        .await
        .unwrap();
    assert_eq!(found.total, 3, "case-insensitive, on name or path, trimmed");
    let beta_only = s
        .projects
        .list(&search("-BETA"), page(1, 10))
        .await
        .unwrap();
    assert_eq!(paths(&beta_only), vec![beta.full_path.as_str()]);
    for wildcard in ["%", "_"] {
        let none = s
            .projects
            .list(&search(wildcard), page(1, 10))
            .await
            .unwrap();
        assert_eq!(none.total, 0, "`{wildcard}` is taken literally");
    }
    assert_eq!(
        s.projects
            .list(&search("   "), page(1, 10))
            .await
            .unwrap()
            .total,
        3
    );

    s.projects
        .set_webhook(
            beta.id,
            WebhookState {
                status: Some(WebhookStatus::Active),
                ..WebhookState::default()
            },
        )
        .await
        .unwrap();
    s.projects
        .update_settings(
            gamma.id,
            ProjectSettingsChanges {
                enabled: Some(false),
                ..ProjectSettingsChanges::default()
            },
        )
        .await
        .unwrap();
    let with = |f: ProjectFilter| {
        let filter = ProjectFilter {
            platform_config_id: Some(config.id),
            ..f
        };
        async move { s.projects.list(&filter, page(1, 10)).await.unwrap() }
    };
    let active = with(ProjectFilter {
        webhook_status: Some(WebhookStatusFilter::Is(WebhookStatus::Active)),
        ..ProjectFilter::default()
    })
    .await;
    assert_eq!(paths(&active), vec![beta.full_path.as_str()]);
    let not_configured = with(ProjectFilter {
        webhook_status: Some(WebhookStatusFilter::NotConfigured),
        ..ProjectFilter::default()
    })
    .await;
    assert_eq!(not_configured.total, 2);
    let disabled = with(ProjectFilter {
        enabled: Some(false),
        ..ProjectFilter::default()
    })
    .await;
    assert_eq!(paths(&disabled), vec![gamma.full_path.as_str()]);
    let host_b = with(ProjectFilter {
        platform_type: Some(PlatformType::Github),
        ..ProjectFilter::default()
    })
    .await;
    assert_eq!(host_b.total, 0);

    let everything: Vec<ProjectId> = s
        .projects
        .list_all()
        .await
        .unwrap()
        .iter()
        .map(|p| p.id)
        .collect();
    let position = |id: ProjectId| everything.iter().position(|&x| x == id).unwrap();
    assert!(
        position(alpha.id) < position(beta.id) && position(beta.id) < position(gamma.id),
        "list_all is ordered by path"
    );
}

async fn stats_count_projects_and_reviews(s: &Stores) {
    use reviewd_domain::model::grade::Rating;
    let before = s.projects.stats().await.unwrap();
    let config = s
        .platform_configs
        .create(seed::new_platform_config(PlatformType::Github, false))
        .await
        .unwrap();
    let mut platform = seed::platform_project();
    platform.platform_type = PlatformType::Github;
    let project = s
        .projects
        .upsert_synced(config.id, &platform)
        .await
        .unwrap();
    s.projects
        .update_settings(
            project.id,
            ProjectSettingsChanges {
                enabled: Some(false),
                auto_review: Some(Some(true)),
                ..ProjectSettingsChanges::default()
            },
        )
        .await
        .unwrap();
    s.projects
        .set_webhook(
            project.id,
            WebhookState {
                status: Some(WebhookStatus::Unknown),
                ..WebhookState::default()
            },
        )
        .await
        .unwrap();
    seed::review(s, &project, 1, "aaa").await;
    seed::finished_review(s, &project, seed::completed(Rating::A, 90, 0)).await;
    seed::finished_review(s, &project, seed::failed("boom")).await;

    let after = s.projects.stats().await.unwrap();
    let delta = |f: fn(&reviewd_domain::model::ProjectStats) -> u64| f(&after) - f(&before);
    assert_eq!(delta(|x| x.total), 1);
    assert_eq!(delta(|x| x.disabled), 1);
    assert_eq!(delta(|x| x.enabled), 0);
    assert_eq!(delta(|x| x.github), 1);
    assert_eq!(delta(|x| x.gitlab), 0);
    assert_eq!(delta(|x| x.webhook_unknown), 1);
    assert_eq!(delta(|x| x.webhook_not_configured), 0);
    assert_eq!(delta(|x| x.auto_review_overrides), 1);
    assert_eq!(delta(|x| x.reviews_total), 3);
    assert_eq!(delta(|x| x.reviews_pending), 1);
    assert_eq!(delta(|x| x.reviews_completed), 1);
    assert_eq!(delta(|x| x.reviews_failed), 1);
    assert_eq!(after.total, after.enabled + after.disabled);
    assert_eq!(after.total, after.gitlab + after.github);
}

async fn recent_reviews_are_newest_first(s: &Stores) {
    let project = seed::project(s).await;
    let other = seed::project(s).await;
    for mr in 1..=3 {
        seed::review(s, &project, mr, "aaa").await;
    }
    seed::review(s, &other, 9, "aaa").await;
    let recent = s.projects.recent_reviews(project.id, 2).await.unwrap();
    let iids: Vec<i64> = recent.iter().map(|r| r.mr_iid).collect();
    assert_eq!(iids, vec![3, 2]);
    assert_eq!(recent[0].status, ReviewStatus::Pending);
    assert_eq!(recent[0].mr_title, "Change 3");
    assert_eq!(recent[0].triggered_by, TriggeredBy::Auto);
    assert!(
        s.projects
            .recent_reviews(ProjectId::new_v4(), 5)
            .await
            .unwrap()
            .is_empty()
    );
}

async fn pipelines_are_newest_first_and_filtered(s: &Stores) {
    let project = seed::project(s).await;
    let other = seed::project(s).await;
    let mut created = Vec::new();
    for mr in 1..=3 {
        created.push(seed::task(s, &project, mr, "aaa").await);
    }
    seed::task(s, &other, 1, "aaa").await;
    let of = |f: PipelineFilter| PipelineFilter {
        project_id: Some(project.id),
        ..f
    };
    let all = s
        .projects
        .pipelines(&of(PipelineFilter::default()), page(1, 2))
        .await
        .unwrap();
    assert_eq!(all.total, 3);
    let iids: Vec<i64> = all.items.iter().map(|e| e.mr_iid).collect();
    assert_eq!(iids, vec![3, 2], "newest first");
    assert_eq!(all.items[0].id, created[2].id);
    assert_eq!(all.items[0].status, TaskStatus::Queued);
    assert_eq!(all.items[0].head_sha.as_deref(), Some("aaa"));
    let last = s
        .projects
        .pipelines(&of(PipelineFilter::default()), page(2, 2))
        .await
        .unwrap();
    assert_eq!(last.items.len(), 1);
    assert_eq!(last.items[0].mr_iid, 1);

    let count = |f: PipelineFilter| async move {
        s.projects
            .pipelines(&of(f), page(1, 10))
            .await
            .unwrap()
            .total
    };
    let mr_2 = PipelineFilter {
        mr_iid: Some(2),
        ..PipelineFilter::default()
    };
    assert_eq!(count(mr_2).await, 1);
    let manual = PipelineFilter {
        triggered_by: Some("manual".into()),
        ..PipelineFilter::default()
    };
    assert_eq!(count(manual).await, 0);
    let queued = PipelineFilter {
        status: Some("queued".into()),
        ..PipelineFilter::default()
    };
    assert_eq!(count(queued).await, 3);

    let runner = format!("runner-{}", seed::unique());
    s.runners
        .upsert(&RunnerRegistration {
            id: runner.clone(),
            name: runner.clone(),
            version: "1.0.0".into(),
            max_concurrent_jobs: 1,
            tags: Vec::new(),
            api_key_id: None,
        })
        .await
        .unwrap();
    let claimed = s
        .runners
        .claim(&runner, 1, Duration::from_secs(600), Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    let held = s
        .projects
        .pipelines(
            &PipelineFilter {
                runner_id: Some(runner.clone()),
                ..PipelineFilter::default()
            },
            page(1, 10),
        )
        .await
        .unwrap();
    assert_eq!(held.total, 1);
    assert_eq!(held.items[0].id, claimed[0].id);
    assert_eq!(held.items[0].runner_id.as_deref(), Some(runner.as_str()));
    assert_eq!(held.items[0].status, TaskStatus::Processing);
}

async fn delete_and_delete_many(s: &Stores) {
    let one = seed::project(s).await;
    let template = s
        .catalog
        .create_template(TemplateChanges {
            name: Some("own".into()),
            content: Some("Review {{diff}}".into()),
            project_id: Some(Some(one.id)),
            ..TemplateChanges::default()
        })
        .await
        .unwrap();
    s.projects.delete(one.id).await.unwrap();
    assert!(matches!(
        s.projects.get(one.id).await,
        Err(RepoError::NotFound)
    ));
    assert_eq!(
        s.catalog.template_content(Some(template.id)).await.unwrap(),
        None,
        "its templates go with it"
    );
    assert!(matches!(
        s.projects.delete(one.id).await,
        Err(RepoError::NotFound)
    ));

    let a = seed::project(s).await;
    let b = seed::project(s).await;
    let kept = seed::project(s).await;
    let deleted: BTreeSet<ProjectId> = s
        .projects
        .delete_many(&[a.id, b.id, one.id, ProjectId::new_v4()])
        .await
        .unwrap()
        .into_iter()
        .collect();
    assert_eq!(deleted, BTreeSet::from([a.id, b.id]));
    assert!(s.projects.get(kept.id).await.is_ok());
    assert!(s.projects.delete_many(&[]).await.unwrap().is_empty());
}
