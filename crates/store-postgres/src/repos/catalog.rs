//! Review templates (one default) and review rules, and the rules a project's
//! reviews apply.

use super::conn;
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::rows::{ActiveRuleRow, RuleRow, TemplateRow};
use crate::schema::{review_rules, review_templates};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::review_views::{RuleItem, TemplateItem};
use reviewd_domain::ports::{
    ActiveRule, CatalogRepository, RepoError, RuleChanges, TemplateChanges,
};
use uuid::Uuid;

pub struct PgCatalogRepository {
    pool: PgPool,
}

impl PgCatalogRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[derive(AsChangeset)]
#[diesel(table_name = review_templates)]
struct TemplateSet {
    name: Option<String>,
    description: Option<Option<String>>,
    content: Option<String>,
    is_default: Option<bool>,
    project_id: Option<Option<Uuid>>,
    updated_at: DateTime<Utc>,
}

#[derive(AsChangeset)]
#[diesel(table_name = review_rules)]
struct RuleSet {
    rule_name: Option<String>,
    description: Option<Option<String>>,
    instructions: Option<String>,
    enabled: Option<bool>,
    file_type_patterns: Option<Vec<String>>,
    file_path_patterns: Option<Vec<String>>,
    priority: Option<i32>,
    project_id: Option<Option<Uuid>>,
    updated_at: DateTime<Utc>,
}

/// Upserts a template; a new default replaces the old one in the same transaction.
async fn save_template(
    conn: &mut diesel_async::AsyncPgConnection,
    id: Option<Uuid>,
    t: TemplateChanges,
) -> QueryResult<TemplateRow> {
    conn.transaction(async move |conn| {
        if t.is_default == Some(true) {
            diesel::update(review_templates::table.filter(review_templates::is_default.eq(true)))
                .set(review_templates::is_default.eq(false))
                .execute(conn)
                .await?;
        }
        match id {
            Some(id) => {
                let set = TemplateSet {
                    name: t.name,
                    description: t.description,
                    content: t.content,
                    is_default: t.is_default,
                    project_id: t.project_id.map(|p| p.map(Uuid::from)),
                    updated_at: Utc::now(),
                };
                diesel::update(review_templates::table.find(id))
                    .set(set)
                    .returning(TemplateRow::as_returning())
                    .get_result(conn)
                    .await
            }
            None => {
                diesel::insert_into(review_templates::table)
                    .values((
                        review_templates::name.eq(t.name.unwrap_or_default()),
                        review_templates::description.eq(t.description.flatten()),
                        review_templates::content.eq(t.content.unwrap_or_default()),
                        review_templates::is_default.eq(t.is_default.unwrap_or(false)),
                        review_templates::project_id.eq(t.project_id.flatten().map(Uuid::from)),
                    ))
                    .returning(TemplateRow::as_returning())
                    .get_result(conn)
                    .await
            }
        }
    })
    .await
}

#[async_trait]
impl CatalogRepository for PgCatalogRepository {
    async fn create_template(&self, t: TemplateChanges) -> Result<TemplateItem, RepoError> {
        let mut conn = conn(&self.pool).await?;
        save_template(&mut conn, None, t)
            .await
            .map(Into::into)
            .map_err(map_diesel_error)
    }

    async fn update_template(
        &self,
        id: Uuid,
        t: TemplateChanges,
    ) -> Result<TemplateItem, RepoError> {
        let mut conn = conn(&self.pool).await?;
        save_template(&mut conn, Some(id), t)
            .await
            .map(Into::into)
            .map_err(map_diesel_error)
    }

    async fn template_content(
        &self,
        id: Option<Uuid>,
    ) -> Result<Option<(Uuid, String)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let query = review_templates::table
            .select((review_templates::id, review_templates::content))
            .into_boxed();
        let query = match id {
            Some(id) => query.filter(review_templates::id.eq(id)),
            None => query.filter(review_templates::is_default.eq(true)),
        };
        query
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)
    }

    async fn template_named(
        &self,
        name: &str,
        project_id: ProjectId,
    ) -> Result<Option<(Uuid, String)>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        review_templates::table
            .select((review_templates::id, review_templates::content))
            .filter(review_templates::name.eq(name))
            .filter(
                review_templates::project_id
                    .eq(project_id.0)
                    .or(review_templates::project_id.is_null()),
            )
            // The project's own first (NULLs last), then the oldest.
            .order((
                review_templates::project_id.desc().nulls_last(),
                review_templates::created_at.asc(),
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)
    }

    async fn create_rule(&self, r: RuleChanges) -> Result<RuleItem, RepoError> {
        let mut conn = conn(&self.pool).await?;
        diesel::insert_into(review_rules::table)
            .values((
                review_rules::rule_name.eq(r.rule_name.unwrap_or_default()),
                review_rules::description.eq(r.description.flatten()),
                review_rules::instructions.eq(r.instructions.unwrap_or_default()),
                review_rules::enabled.eq(r.enabled.unwrap_or(true)),
                review_rules::file_type_patterns.eq(r.file_type_patterns.unwrap_or_default()),
                review_rules::file_path_patterns.eq(r.file_path_patterns.unwrap_or_default()),
                review_rules::priority.eq(r.priority.unwrap_or(0)),
                review_rules::project_id.eq(r.project_id.flatten().map(Uuid::from)),
            ))
            .returning(RuleRow::as_returning())
            .get_result::<RuleRow>(&mut conn)
            .await
            .map(Into::into)
            .map_err(map_diesel_error)
    }

    async fn update_rule(&self, id: Uuid, r: RuleChanges) -> Result<RuleItem, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let set = RuleSet {
            rule_name: r.rule_name,
            description: r.description,
            instructions: r.instructions,
            enabled: r.enabled,
            file_type_patterns: r.file_type_patterns,
            file_path_patterns: r.file_path_patterns,
            priority: r.priority,
            project_id: r.project_id.map(|p| p.map(Uuid::from)),
            updated_at: Utc::now(),
        };
        diesel::update(review_rules::table.find(id))
            .set(set)
            .returning(RuleRow::as_returning())
            .get_result::<RuleRow>(&mut conn)
            .await
            .map(Into::into)
            .map_err(map_diesel_error)
    }

    async fn active_rules(&self, project_id: ProjectId) -> Result<Vec<ActiveRule>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<ActiveRuleRow> = review_rules::table
            .filter(review_rules::enabled.eq(true))
            .filter(
                review_rules::project_id
                    .is_null()
                    .or(review_rules::project_id.eq(project_id.0)),
            )
            .order((review_rules::priority.desc(), review_rules::rule_name.asc()))
            .select(ActiveRuleRow::as_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(rows.into_iter().map(Into::into).collect())
    }
}
