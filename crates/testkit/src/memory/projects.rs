//! Synced projects: unique per (config, platform project id), their settings and
//! webhook state, and the reads over their reviews and tasks.

use super::MemoryStore;
use super::Tables;
use super::platform_configs::set;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::ReviewId;
use reviewd_domain::model::{
    BudgetMonth, PipelineEntry, PipelineFilter, PlatformProject, PlatformType, Project,
    ProjectCost, ProjectFilter, ProjectSettingsChanges, ProjectStats, ReviewSummary, WebhookState,
    WebhookStatus, WebhookStatusFilter,
};
use reviewd_domain::ports::{ProjectRepository, RepoError};
use reviewd_domain::{Page, PageRequest};
use std::cmp::Reverse;
use uuid::Uuid;

impl Tables {
    fn project_mut(&mut self, id: ProjectId) -> Result<&mut Project, RepoError> {
        self.projects
            .iter_mut()
            .find(|p| p.id == id)
            .ok_or(RepoError::NotFound)
    }

    /// Deletes the projects among `ids` with what the schema deletes with them
    /// (`ON DELETE CASCADE`: their reviews, tasks, templates and rules, and those
    /// rows' children). Returns the ids deleted.
    pub(crate) fn delete_projects(&mut self, ids: &[ProjectId]) -> Vec<ProjectId> {
        let deleted: Vec<ProjectId> = self
            .projects
            .iter()
            .filter(|p| ids.contains(&p.id))
            .map(|p| p.id)
            .collect();
        self.projects.retain(|p| !deleted.contains(&p.id));
        self.budget_alerts.retain(|p, _| !deleted.contains(p));
        self.budget_notes.retain(|(p, _, _)| !deleted.contains(p));
        self.delete_reviews_of(&deleted);
        self.delete_tasks_of(&deleted);
        self.delete_catalog_of(&deleted);
        self.talk
            .conversations
            .retain(|c| !deleted.contains(&c.project_id));
        self.talk.controls.retain(|(p, _), _| !deleted.contains(p));
        self.talk
            .learnings
            .retain(|l| !deleted.contains(&l.project_id));
        self.uploads
            .retain(|(u, _)| !deleted.contains(&u.project_id));
        deleted
    }

    /// AI call logs stay (`SET NULL`): usage outlives reviews.
    fn delete_reviews_of(&mut self, projects: &[ProjectId]) {
        let reviews: Vec<ReviewId> = self
            .reviews
            .iter()
            .filter(|r| projects.contains(&r.detail.item.project_id))
            .map(|r| r.detail.item.id)
            .collect();
        self.reviews
            .retain(|r| !reviews.contains(&r.detail.item.id));
        self.rounds.retain(|r| !reviews.contains(&r.review_id));
        self.files.retain(|f| !reviews.contains(&f.review_id));
        self.comments
            .retain(|c| !reviews.contains(&c.comment.review_id));
        self.feedbacks.retain(|f| !reviews.contains(&f.review_id));
        for call in &mut self.ai_calls {
            if call.review_id.is_some_and(|id| reviews.contains(&id)) {
                call.review_id = None;
            }
        }
    }

    fn delete_tasks_of(&mut self, projects: &[ProjectId]) {
        let tasks: Vec<Uuid> = self
            .tasks
            .iter()
            .filter(|t| projects.contains(&t.task.project_id))
            .map(|t| t.task.id)
            .collect();
        self.tasks.retain(|t| !tasks.contains(&t.task.id));
        self.task_logs.retain(|l| !tasks.contains(&l.task_id));
    }

    /// What pointed at a deleted template keeps going without one (`SET NULL`).
    fn delete_catalog_of(&mut self, projects: &[ProjectId]) {
        let owned = |owner: Option<ProjectId>| owner.is_some_and(|p| projects.contains(&p));
        let templates: Vec<Uuid> = self
            .catalog
            .templates
            .iter()
            .filter(|t| owned(t.item.project_id))
            .map(|t| t.item.id)
            .collect();
        self.catalog
            .templates
            .retain(|t| !templates.contains(&t.item.id));
        self.catalog.rules.retain(|r| !owned(r.item.project_id));
        let gone = |id: &mut Option<Uuid>| {
            if id.is_some_and(|t| templates.contains(&t)) {
                *id = None;
            }
        };
        self.projects
            .iter_mut()
            .for_each(|p| gone(&mut p.template_id));
        self.tasks
            .iter_mut()
            .for_each(|t| gone(&mut t.task.template_id));
    }
}

fn new_project(
    config_id: Uuid,
    p: &PlatformProject,
    now: chrono::DateTime<chrono::Utc>,
) -> Project {
    Project {
        id: ProjectId::new_v4(),
        platform_config_id: config_id,
        platform_type: p.platform_type,
        platform_project_id: p.id.clone(),
        name: p.name.clone(),
        full_path: p.full_path.clone(),
        web_url: p.web_url.clone(),
        default_branch: p.default_branch.clone(),
        visibility: p.visibility.clone(),
        enabled: true,
        auto_review: None,
        file_ignore_patterns: None,
        ai_config_id: None,
        send_to_platform: None,
        default_reviewer_ids: Vec::new(),
        auto_assign_author: false,
        template_id: None,
        monthly_budget_usd: None,
        context_budget_tokens: None,
        suppress_rejected: true,
        refuse_outsiders: true,
        gate_enabled: true,
        gate_min_rating: None,
        webhook_id: None,
        webhook_url: None,
        webhook_status: None,
        webhook_checked_at: None,
        last_synced_at: Some(now),
        created_at: now,
        updated_at: now,
    }
}

/// The platform's fields of a synced project; settings and webhook stay.
fn refresh(project: &mut Project, p: &PlatformProject) {
    project.name.clone_from(&p.name);
    project.full_path.clone_from(&p.full_path);
    project.web_url.clone_from(&p.web_url);
    project.default_branch.clone_from(&p.default_branch);
    project.visibility.clone_from(&p.visibility);
}

fn matches(p: &Project, f: &ProjectFilter) -> bool {
    let search = f
        .search
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_lowercase);
    search.is_none_or(|s| {
        p.name.to_lowercase().contains(&s) || p.full_path.to_lowercase().contains(&s)
    }) && f.platform_type.is_none_or(|t| p.platform_type == t)
        && f.platform_config_id
            .is_none_or(|id| p.platform_config_id == id)
        && f.enabled.is_none_or(|e| p.enabled == e)
        && f.webhook_status.is_none_or(|w| match w {
            WebhookStatusFilter::Is(status) => p.webhook_status == Some(status),
            WebhookStatusFilter::NotConfigured => p.webhook_status.is_none(),
        })
}

fn by_path(mut projects: Vec<Project>) -> Vec<Project> {
    projects.sort_by(|a, b| (&a.full_path, a.id).cmp(&(&b.full_path, b.id)));
    projects
}

fn count(projects: &[Project], keep: impl Fn(&Project) -> bool) -> u64 {
    projects.iter().filter(|p| keep(p)).count() as u64
}

fn project_stats(projects: &[Project]) -> ProjectStats {
    let total = projects.len() as u64;
    let enabled = count(projects, |p| p.enabled);
    let webhook = |s: WebhookStatus| count(projects, |p| p.webhook_status == Some(s));
    ProjectStats {
        total,
        enabled,
        disabled: total - enabled,
        gitlab: count(projects, |p| p.platform_type == PlatformType::Gitlab),
        github: count(projects, |p| p.platform_type == PlatformType::Github),
        webhook_active: webhook(WebhookStatus::Active),
        webhook_inactive: webhook(WebhookStatus::Inactive),
        webhook_error: webhook(WebhookStatus::Error),
        webhook_unknown: webhook(WebhookStatus::Unknown),
        webhook_not_configured: count(projects, |p| p.webhook_status.is_none()),
        auto_review_overrides: count(projects, |p| p.auto_review.is_some()),
        ..ProjectStats::default()
    }
}

fn pipeline_matches(t: &super::tables::TaskRow, f: &PipelineFilter) -> bool {
    f.project_id.is_none_or(|id| t.task.project_id == id)
        && f.runner_id
            .as_ref()
            .is_none_or(|r| t.runner_id.as_ref() == Some(r))
        && f.status
            .as_ref()
            .is_none_or(|s| t.task.status.as_str() == s)
        && f.triggered_by
            .as_ref()
            .is_none_or(|s| t.task.triggered_by.as_str() == s)
        && f.mr_iid.is_none_or(|iid| t.task.mr_iid == iid)
}

fn pipeline_entry(t: &super::tables::TaskRow) -> PipelineEntry {
    let task = &t.task;
    PipelineEntry {
        id: task.id,
        review_id: task.review_id,
        mr_iid: task.mr_iid,
        head_sha: task.head_sha.clone(),
        status: task.status,
        triggered_by: task.triggered_by,
        attempts: task.attempts,
        runner_id: t.runner_id.clone(),
        error_message: task.error_message.clone(),
        created_at: task.created_at,
        started_at: task.started_at,
        completed_at: task.completed_at,
    }
}

#[async_trait]
impl ProjectRepository for MemoryStore {
    async fn upsert_synced(
        &self,
        platform_config_id: Uuid,
        p: &PlatformProject,
    ) -> Result<Project, RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        if !tables
            .platform_configs
            .iter()
            .any(|c| c.id == platform_config_id)
        {
            return Err(RepoError::NotFound);
        }
        let existing = tables
            .projects
            .iter_mut()
            .find(|x| x.platform_config_id == platform_config_id && x.platform_project_id == p.id);
        if let Some(project) = existing {
            refresh(project, p);
            project.last_synced_at = Some(now);
            project.updated_at = now;
            return Ok(project.clone());
        }
        let project = new_project(platform_config_id, p, now);
        tables.projects.push(project.clone());
        Ok(project)
    }

    async fn find_by_platform(
        &self,
        platform_type: PlatformType,
        platform_project_id: &str,
    ) -> Result<Vec<Project>, RepoError> {
        Ok(self
            .tables()
            .projects
            .iter()
            .filter(|p| p.platform_type == platform_type)
            .filter(|p| p.platform_project_id == platform_project_id)
            .cloned()
            .collect())
    }

    async fn list_all(&self) -> Result<Vec<Project>, RepoError> {
        Ok(by_path(self.tables().projects.clone()))
    }

    async fn list(
        &self,
        filter: &ProjectFilter,
        page: PageRequest,
    ) -> Result<Page<Project>, RepoError> {
        let all = self
            .tables()
            .projects
            .iter()
            .filter(|p| matches(p, filter))
            .cloned()
            .collect();
        Ok(Page::from_all(by_path(all), page))
    }

    async fn get(&self, id: ProjectId) -> Result<Project, RepoError> {
        Ok(self.tables().project_mut(id)?.clone())
    }

    async fn update_settings(
        &self,
        id: ProjectId,
        c: ProjectSettingsChanges,
    ) -> Result<Project, RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        // The foreign key to ai_configs.
        if let Some(Some(ai)) = c.ai_config_id
            && !tables.ai_configs.iter().any(|config| config.id == ai)
        {
            return Err(RepoError::NotFound);
        }
        // The store's CHECK constraint.
        if let Some(Some(budget)) = c.monthly_budget_usd
            && !(0.0..=1_000_000_000.0).contains(&budget)
        {
            return Err(RepoError::Conflict(
                "monthly_budget_usd out of range".into(),
            ));
        }
        // The store's CHECK constraint.
        if let Some(Some(budget)) = c.context_budget_tokens
            && budget > 100_000
        {
            return Err(RepoError::Conflict(
                "context_budget_tokens out of range".into(),
            ));
        }
        let project = tables.project_mut(id)?;
        set(&mut project.enabled, c.enabled);
        set(&mut project.auto_review, c.auto_review);
        set(&mut project.file_ignore_patterns, c.file_ignore_patterns);
        set(&mut project.ai_config_id, c.ai_config_id);
        set(&mut project.default_reviewer_ids, c.default_reviewer_ids);
        set(&mut project.auto_assign_author, c.auto_assign_author);
        set(&mut project.monthly_budget_usd, c.monthly_budget_usd);
        set(&mut project.suppress_rejected, c.suppress_rejected);
        set(&mut project.refuse_outsiders, c.refuse_outsiders);
        set(&mut project.gate_enabled, c.gate_enabled);
        set(&mut project.gate_min_rating, c.gate_min_rating);
        set(&mut project.context_budget_tokens, c.context_budget_tokens);
        project.updated_at = now;
        Ok(project.clone())
    }

    async fn cost_since(&self, id: ProjectId, since: DateTime<Utc>) -> Result<f64, RepoError> {
        let tables = self.tables();
        Ok(tables
            .ai_calls
            .iter()
            .filter(|c| c.call.created_at >= since)
            .filter(|c| {
                c.review_id
                    .and_then(|r| tables.review(r).ok())
                    .is_some_and(|r| r.detail.item.project_id == id)
            })
            .filter_map(|c| c.call.cost_usd)
            .sum())
    }

    async fn claim_budget_alert(&self, id: ProjectId, month: NaiveDate) -> Result<bool, RepoError> {
        let mut tables = self.tables();
        tables.project_mut(id)?;
        let first = tables.budget_alerts.get(&id).is_none_or(|m| *m < month);
        if first {
            tables.budget_alerts.insert(id, month);
        }
        Ok(first)
    }

    async fn claim_budget_note(
        &self,
        id: ProjectId,
        mr_iid: i64,
        month: NaiveDate,
    ) -> Result<bool, RepoError> {
        let mut tables = self.tables();
        tables.project_mut(id)?;
        Ok(tables.budget_notes.insert((id, mr_iid, month)))
    }

    async fn release_budget_note(
        &self,
        id: ProjectId,
        mr_iid: i64,
        month: NaiveDate,
    ) -> Result<(), RepoError> {
        self.tables().budget_notes.remove(&(id, mr_iid, month));
        Ok(())
    }

    async fn set_webhook(&self, id: ProjectId, state: WebhookState) -> Result<Project, RepoError> {
        let now = self.now();
        let mut tables = self.tables();
        let project = tables.project_mut(id)?;
        project.webhook_id = state.webhook_id;
        project.webhook_url = state.webhook_url;
        project.webhook_status = state.status;
        project.webhook_checked_at = Some(now);
        project.updated_at = now;
        Ok(project.clone())
    }

    async fn delete(&self, id: ProjectId) -> Result<(), RepoError> {
        if self.tables().delete_projects(&[id]).is_empty() {
            return Err(RepoError::NotFound);
        }
        Ok(())
    }

    async fn delete_many(&self, ids: &[ProjectId]) -> Result<Vec<ProjectId>, RepoError> {
        Ok(self.tables().delete_projects(ids))
    }

    async fn stats(&self) -> Result<ProjectStats, RepoError> {
        let tables = self.tables();
        let reviews = |status: &str| {
            tables
                .reviews
                .iter()
                .filter(|r| r.detail.item.status.as_str() == status)
                .count() as u64
        };
        let (cost_usd_total, cost_usd_this_month, cost_by_project) =
            project_costs(&tables, self.now());
        Ok(ProjectStats {
            cost_usd_total,
            cost_usd_this_month,
            cost_by_project,
            reviews_total: tables.reviews.len() as u64,
            reviews_pending: reviews("pending"),
            reviews_completed: reviews("completed"),
            reviews_failed: reviews("failed"),
            ..project_stats(&tables.projects)
        })
    }

    async fn recent_reviews(
        &self,
        id: ProjectId,
        limit: u32,
    ) -> Result<Vec<ReviewSummary>, RepoError> {
        let tables = self.tables();
        let mut reviews: Vec<_> = tables
            .reviews
            .iter()
            .map(|r| &r.detail.item)
            .filter(|r| r.project_id == id)
            .collect();
        reviews.sort_by_key(|r| Reverse((r.created_at, r.id)));
        Ok(reviews
            .into_iter()
            .take(limit as usize)
            .map(|r| ReviewSummary {
                id: r.id,
                mr_iid: r.mr_iid,
                mr_title: r.mr_title.clone(),
                mr_url: r.mr_url.clone(),
                status: r.status,
                overall_rating: r.overall_rating,
                comment_count: r.comment_count,
                triggered_by: r.triggered_by,
                created_at: r.created_at,
                completed_at: r.completed_at,
            })
            .collect())
    }

    async fn pipelines(
        &self,
        filter: &PipelineFilter,
        page: PageRequest,
    ) -> Result<Page<PipelineEntry>, RepoError> {
        let tables = self.tables();
        let mut tasks: Vec<_> = tables
            .tasks
            .iter()
            .filter(|t| pipeline_matches(t, filter))
            .collect();
        tasks.sort_by_key(|t| Reverse((t.task.created_at, t.task.id)));
        let entries = tasks.into_iter().map(pipeline_entry).collect();
        Ok(Page::from_all(entries, page))
    }
}

/// Spending ever, this calendar month (UTC) and this month per project, as the
/// PostgreSQL store sums the AI call log.
fn project_costs(t: &Tables, now: DateTime<Utc>) -> (f64, f64, Vec<ProjectCost>) {
    let month_start = BudgetMonth::of(now).start();
    let priced = || {
        t.ai_calls
            .iter()
            .filter_map(|c| c.call.cost_usd.map(|cost| (c, cost)))
    };
    let total = priced().map(|(_, cost)| cost).sum();
    let this_month = || priced().filter(|(c, _)| c.call.created_at >= month_start);
    let month = this_month().map(|(_, cost)| cost).sum();
    let mut by_project: Vec<ProjectCost> = Vec::new();
    for (call, cost) in this_month() {
        let Some(review) = call.review_id.and_then(|id| t.review(id).ok()) else {
            continue;
        };
        let item = &review.detail.item;
        match by_project
            .iter_mut()
            .find(|p| p.project_id == item.project_id)
        {
            Some(p) => p.cost_usd += cost,
            None => by_project.push(ProjectCost {
                project_id: item.project_id,
                project_name: item.project_name.clone(),
                cost_usd: cost,
            }),
        }
    }
    by_project.sort_by(|a, b| {
        b.cost_usd
            .total_cmp(&a.cost_usd)
            .then(a.project_id.cmp(&b.project_id))
    });
    (total, month, by_project)
}
