//! Projects synced from the platforms: their settings and webhooks, stats,
//! recent reviews and pipelines.

use super::{conn, contains_pattern, found, paginate};
use crate::PgPool;
use crate::cache::{ConfigCache, Slot};
use crate::error::map_diesel_error;
use crate::rows::{PipelineRow, ProjectCountsRow, ProjectRow, ReviewCountsRow, ReviewSummaryRow};
use crate::schema::{budget_notes, projects, review_tasks, reviews};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::upsert::excluded;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::{
    PipelineEntry, PipelineFilter, PlatformProject, Project, ProjectFilter, ProjectSettingsChanges,
    ProjectStats, ReviewSummary, WebhookState, WebhookStatusFilter,
};
use reviewd_domain::ports::{ProjectRepository, RepoError};
use reviewd_domain::{Page, PageRequest};
use uuid::Uuid;

pub struct PgProjectRepository {
    pool: PgPool,
    cache: ConfigCache,
    /// `find_by_platform`: every webhook's project.
    by_platform: Slot<(&'static str, String), Vec<Project>>,
    /// Projects by id: each runner claim and each review reads its project.
    by_id: Slot<Uuid, Project>,
}

impl PgProjectRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self {
            pool,
            cache: ConfigCache::default(),
            by_platform: Slot::default(),
            by_id: Slot::default(),
        }
    }

    /// Serves `find_by_platform` from `cache` while it says nothing changed.
    #[must_use]
    pub fn with_cache(mut self, cache: ConfigCache) -> Self {
        self.cache = cache;
        self
    }
}

fn to_projects(rows: Vec<ProjectRow>) -> Result<Vec<Project>, RepoError> {
    rows.into_iter().map(Project::try_from).collect()
}

fn filtered(filter: &ProjectFilter) -> projects::BoxedQuery<'static, Pg> {
    let mut query = projects::table.into_boxed();
    if let Some(search) = filter
        .search
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let pattern = contains_pattern(search);
        query = query.filter(
            projects::name
                .ilike(pattern.clone())
                .or(projects::full_path.ilike(pattern)),
        );
    }
    if let Some(t) = filter.platform_type {
        query = query.filter(projects::platform_type.eq(t.as_str()));
    }
    if let Some(id) = filter.platform_config_id {
        query = query.filter(projects::platform_config_id.eq(id));
    }
    if let Some(enabled) = filter.enabled {
        query = query.filter(projects::enabled.eq(enabled));
    }
    match filter.webhook_status {
        Some(WebhookStatusFilter::Is(status)) => {
            query = query.filter(projects::webhook_status.eq(status.as_str()))
        }
        Some(WebhookStatusFilter::NotConfigured) => {
            query = query.filter(projects::webhook_status.is_null())
        }
        None => {}
    }
    query
}

#[derive(AsChangeset)]
#[diesel(table_name = projects)]
struct SettingsChangeset {
    enabled: Option<bool>,
    auto_review: Option<Option<bool>>,
    file_ignore_patterns: Option<Option<Vec<String>>>,
    ai_config_id: Option<Option<Uuid>>,
    default_reviewer_ids: Option<Vec<String>>,
    auto_assign_author: Option<bool>,
    monthly_budget_usd: Option<Option<f64>>,
    suppress_rejected: Option<bool>,
    refuse_outsiders: Option<bool>,
    gate_enabled: Option<bool>,
    gate_min_rating: Option<Option<String>>,
    context_budget_tokens: Option<Option<i32>>,
    updated_at: DateTime<Utc>,
}

#[async_trait]
impl ProjectRepository for PgProjectRepository {
    async fn upsert_synced(
        &self,
        platform_config_id: Uuid,
        p: &PlatformProject,
    ) -> Result<Project, RepoError> {
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                let now = Utc::now();
                diesel::insert_into(projects::table)
                    .values((
                        projects::platform_config_id.eq(platform_config_id),
                        projects::platform_type.eq(p.platform_type.as_str()),
                        projects::platform_project_id.eq(&p.id),
                        projects::name.eq(&p.name),
                        projects::full_path.eq(&p.full_path),
                        projects::web_url.eq(&p.web_url),
                        projects::default_branch.eq(&p.default_branch),
                        projects::visibility.eq(&p.visibility),
                        projects::last_synced_at.eq(now),
                    ))
                    .on_conflict((projects::platform_config_id, projects::platform_project_id))
                    .do_update()
                    .set((
                        projects::name.eq(excluded(projects::name)),
                        projects::full_path.eq(excluded(projects::full_path)),
                        projects::web_url.eq(excluded(projects::web_url)),
                        projects::default_branch.eq(excluded(projects::default_branch)),
                        projects::visibility.eq(excluded(projects::visibility)),
                        projects::last_synced_at.eq(now),
                        projects::updated_at.eq(now),
                    ))
                    .returning(ProjectRow::as_returning())
                    .get_result(&mut conn)
                    .await
                    .map_err(map_diesel_error)?
                    .try_into()
            })
            .await
    }

    async fn find_by_platform(
        &self,
        platform_type: reviewd_domain::model::PlatformType,
        platform_project_id: &str,
    ) -> Result<Vec<Project>, RepoError> {
        let key = (platform_type.as_str(), platform_project_id.to_owned());
        if let Some(found) = self.by_platform.get(&self.cache, &key) {
            return Ok(found);
        }
        let ticket = self.cache.ticket();
        let mut conn = conn(&self.pool).await?;
        let rows = projects::table
            .filter(projects::platform_type.eq(platform_type.as_str()))
            .filter(projects::platform_project_id.eq(platform_project_id))
            .select(ProjectRow::as_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let found = to_projects(rows)?;
        self.by_platform.put(ticket, key, &found);
        Ok(found)
    }

    async fn list_all(&self) -> Result<Vec<Project>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows = projects::table
            .select(ProjectRow::as_select())
            .order((projects::full_path.asc(), projects::id.asc()))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        to_projects(rows)
    }

    async fn list(
        &self,
        filter: &ProjectFilter,
        page: PageRequest,
    ) -> Result<Page<Project>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows = filtered(filter)
            .select(ProjectRow::as_select())
            .order((projects::full_path.asc(), projects::id.asc()));
        paginate(
            &mut conn,
            page,
            filtered(filter).count(),
            rows,
            Project::try_from,
        )
        .await
    }

    async fn get(&self, id: ProjectId) -> Result<Project, RepoError> {
        let id = Uuid::from(id);
        if let Some(found) = self.by_id.get(&self.cache, &id) {
            return Ok(found);
        }
        let ticket = self.cache.ticket();
        let mut conn = conn(&self.pool).await?;
        let found: Project = projects::table
            .find(id)
            .select(ProjectRow::as_select())
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .try_into()?;
        self.by_id.put(ticket, id, &found);
        Ok(found)
    }

    async fn update_settings(
        &self,
        id: ProjectId,
        c: ProjectSettingsChanges,
    ) -> Result<Project, RepoError> {
        let id = Uuid::from(id);
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                let changeset = SettingsChangeset {
                    enabled: c.enabled,
                    auto_review: c.auto_review,
                    file_ignore_patterns: c.file_ignore_patterns,
                    ai_config_id: c.ai_config_id,
                    default_reviewer_ids: c.default_reviewer_ids,
                    auto_assign_author: c.auto_assign_author,
                    monthly_budget_usd: c.monthly_budget_usd,
                    suppress_rejected: c.suppress_rejected,
                    refuse_outsiders: c.refuse_outsiders,
                    gate_enabled: c.gate_enabled,
                    gate_min_rating: c.gate_min_rating.map(|r| r.map(|r| r.as_str().to_owned())),
                    context_budget_tokens: c
                        .context_budget_tokens
                        .map(|b| b.map(|n| i32::try_from(n).unwrap_or(i32::MAX))),
                    updated_at: Utc::now(),
                };
                diesel::update(projects::table.find(id))
                    .set(changeset)
                    .returning(ProjectRow::as_returning())
                    .get_result(&mut conn)
                    .await
                    .map_err(map_diesel_error)?
                    .try_into()
            })
            .await
    }

    async fn cost_since(&self, id: ProjectId, since: DateTime<Utc>) -> Result<f64, RepoError> {
        let id = Uuid::from(id);
        let mut conn = conn(&self.pool).await?;
        super::costs::project_cost_since(&mut conn, id, since).await
    }

    async fn claim_budget_alert(&self, id: ProjectId, month: NaiveDate) -> Result<bool, RepoError> {
        let id = Uuid::from(id);
        let mut conn = conn(&self.pool).await?;
        // One UPDATE decides it: of concurrent webhooks, one sees a row change.
        let claimed = diesel::update(
            projects::table.find(id).filter(
                projects::budget_alerted_month
                    .is_null()
                    .or(projects::budget_alerted_month.lt(month)),
            ),
        )
        .set(projects::budget_alerted_month.eq(month))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        if claimed == 1 {
            return Ok(true);
        }
        let exists: i64 = projects::table
            .find(id)
            .count()
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        if exists == 0 {
            return Err(RepoError::NotFound);
        }
        Ok(false)
    }

    async fn claim_budget_note(
        &self,
        id: ProjectId,
        mr_iid: i64,
        month: NaiveDate,
    ) -> Result<bool, RepoError> {
        let id = Uuid::from(id);
        let mut conn = conn(&self.pool).await?;
        let inserted = diesel::insert_into(budget_notes::table)
            .values((
                budget_notes::project_id.eq(id),
                budget_notes::mr_iid.eq(mr_iid),
                budget_notes::month.eq(month),
            ))
            .on_conflict_do_nothing()
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(inserted == 1)
    }

    async fn release_budget_note(
        &self,
        id: ProjectId,
        mr_iid: i64,
        month: NaiveDate,
    ) -> Result<(), RepoError> {
        let id = Uuid::from(id);
        let mut conn = conn(&self.pool).await?;
        diesel::delete(budget_notes::table.find((id, mr_iid, month)))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn set_webhook(&self, id: ProjectId, state: WebhookState) -> Result<Project, RepoError> {
        let id = Uuid::from(id);
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                let now = Utc::now();
                diesel::update(projects::table.find(id))
                    .set((
                        projects::webhook_id.eq(state.webhook_id),
                        projects::webhook_url.eq(state.webhook_url),
                        projects::webhook_status.eq(state.status.map(|s| s.as_str())),
                        projects::webhook_checked_at.eq(now),
                        projects::updated_at.eq(now),
                    ))
                    .returning(ProjectRow::as_returning())
                    .get_result(&mut conn)
                    .await
                    .map_err(map_diesel_error)?
                    .try_into()
            })
            .await
    }

    async fn delete(&self, id: ProjectId) -> Result<(), RepoError> {
        let id = Uuid::from(id);
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                let n = diesel::delete(projects::table.find(id))
                    .execute(&mut conn)
                    .await
                    .map_err(map_diesel_error)?;
                found(n)
            })
            .await
    }

    async fn delete_many(&self, ids: &[ProjectId]) -> Result<Vec<ProjectId>, RepoError> {
        let ids: Vec<Uuid> = ids.iter().map(|id| id.0).collect();
        self.cache
            .after(async {
                let mut conn = conn(&self.pool).await?;
                diesel::delete(projects::table.filter(projects::id.eq_any(&ids)))
                    .returning(projects::id)
                    .get_results::<Uuid>(&mut conn)
                    .await
                    .map(|deleted| deleted.into_iter().map(ProjectId).collect())
                    .map_err(map_diesel_error)
            })
            .await
    }

    async fn stats(&self) -> Result<ProjectStats, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let projects: ProjectCountsRow = projects::table
            .select(ProjectCountsRow::as_select())
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let reviews: ReviewCountsRow = reviews::table
            .select(ReviewCountsRow::as_select())
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let (total, month, by_project) = super::costs::project_costs(&mut conn).await?;
        Ok(ProjectStats {
            cost_usd_total: total,
            cost_usd_this_month: month,
            cost_by_project: by_project,
            ..projects.into_stats(reviews)
        })
    }

    async fn recent_reviews(
        &self,
        id: ProjectId,
        limit: u32,
    ) -> Result<Vec<ReviewSummary>, RepoError> {
        let id = Uuid::from(id);
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<ReviewSummaryRow> = reviews::table
            .filter(reviews::project_id.eq(id))
            .order((reviews::created_at.desc(), reviews::id.desc()))
            .limit(i64::from(limit))
            .select(ReviewSummaryRow::as_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(TryInto::try_into).collect()
    }

    async fn pipelines(
        &self,
        filter: &PipelineFilter,
        page: PageRequest,
    ) -> Result<Page<PipelineEntry>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let query = || {
            let mut q = review_tasks::table.into_boxed::<Pg>();
            if let Some(id) = filter.project_id {
                q = q.filter(review_tasks::project_id.eq(id.0));
            }
            if let Some(runner) = &filter.runner_id {
                q = q.filter(review_tasks::runner_id.eq(runner.clone()));
            }
            if let Some(status) = &filter.status {
                q = q.filter(review_tasks::status.eq(status.clone()));
            }
            if let Some(t) = &filter.triggered_by {
                q = q.filter(review_tasks::triggered_by.eq(t.clone()));
            }
            if let Some(iid) = filter.mr_iid {
                q = q.filter(review_tasks::mr_iid.eq(iid));
            }
            q
        };
        let rows = query()
            .order((review_tasks::created_at.desc(), review_tasks::id.desc()))
            .select(PipelineRow::as_select());
        paginate(
            &mut conn,
            page,
            query().count(),
            rows,
            PipelineEntry::try_from,
        )
        .await
    }
}
