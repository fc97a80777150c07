//! The template and rule lists the dashboard shows (without their text).

use crate::PgPool;
use crate::error::map_diesel_error;
use crate::repos::conn;
use crate::rows::{RuleRow, TemplateRow};
use crate::schema::{review_rules, review_templates};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::review_views::{RuleItem, TemplateItem};
use reviewd_domain::ports::RepoError;

pub(super) async fn templates(pool: &PgPool) -> Result<Vec<TemplateItem>, RepoError> {
    let mut conn = conn(pool).await?;
    let rows: Vec<TemplateRow> = review_templates::table
        .order((
            review_templates::is_default.desc(),
            review_templates::name.asc(),
        ))
        .select(TemplateRow::as_select())
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(rows.into_iter().map(Into::into).collect())
}

pub(super) async fn rules(pool: &PgPool) -> Result<Vec<RuleItem>, RepoError> {
    let mut conn = conn(pool).await?;
    let rows: Vec<RuleRow> = review_rules::table
        .order((review_rules::priority.desc(), review_rules::rule_name.asc()))
        .select(RuleRow::as_select())
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(rows.into_iter().map(Into::into).collect())
}
