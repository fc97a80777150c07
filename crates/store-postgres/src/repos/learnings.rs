//! A project's learnings: the lessons sent with its prompts.

use super::conn;
use super::conversations::PgConversationRepository;
use crate::error::map_diesel_error;
use crate::rows::LearningRow;
use crate::schema::learnings;
use async_trait::async_trait;
use chrono::Utc;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::conversation::{Learning, NewLearning};
use reviewd_domain::ports::{LearningRepository, RepoError};
use uuid::Uuid;

#[async_trait]
impl LearningRepository for PgConversationRepository {
    async fn learnings(&self, project: ProjectId) -> Result<Vec<Learning>, RepoError> {
        let mut conn = conn(self.pool()).await?;
        let rows: Vec<LearningRow> = learnings::table
            .filter(learnings::project_id.eq(project.0))
            .order((learnings::created_at.asc(), learnings::id.asc()))
            .select(LearningRow::as_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(TryInto::try_into).collect()
    }

    async fn add_learning(&self, new: NewLearning) -> Result<Learning, RepoError> {
        let mut conn = conn(self.pool()).await?;
        diesel::insert_into(learnings::table)
            .values((
                learnings::id.eq(Uuid::now_v7()),
                learnings::project_id.eq(new.project_id.0),
                learnings::text.eq(&new.text),
                learnings::source.eq(new.source.as_str()),
                learnings::author.eq(&new.author),
                learnings::mr_iid.eq(new.mr_iid),
            ))
            .returning(LearningRow::as_returning())
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .try_into()
    }

    async fn get_learning(&self, project: ProjectId, id: Uuid) -> Result<Learning, RepoError> {
        let mut conn = conn(self.pool()).await?;
        learnings::table
            .find(id)
            .filter(learnings::project_id.eq(project.0))
            .select(LearningRow::as_select())
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .try_into()
    }

    async fn edit_learning(
        &self,
        project: ProjectId,
        id: Uuid,
        text: &str,
    ) -> Result<Learning, RepoError> {
        let mut conn = conn(self.pool()).await?;
        diesel::update(learnings::table.find(id))
            .filter(learnings::project_id.eq(project.0))
            .set((
                learnings::text.eq(text),
                learnings::updated_at.eq(Utc::now()),
            ))
            .returning(LearningRow::as_returning())
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .try_into()
    }

    async fn delete_learning(&self, project: ProjectId, id: Uuid) -> Result<(), RepoError> {
        let mut conn = conn(self.pool()).await?;
        let n = diesel::delete(learnings::table.find(id))
            .filter(learnings::project_id.eq(project.0))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        if n == 0 {
            return Err(RepoError::NotFound);
        }
        Ok(())
    }
}
