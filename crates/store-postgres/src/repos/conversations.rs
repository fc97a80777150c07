//! Conversations and merge requests' controls (the learnings' half of this
//! repository is in `learnings.rs`).

use super::conn;
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::rows::{ControlsRow, ConversationRow};
use crate::schema::{conversations, merge_request_controls};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::upsert::excluded;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::conversation::{
    ControlChange, Conversation, ConversationEnd, ConversationStatus, MrControls, NewConversation,
    RecentTalk,
};
use reviewd_domain::ports::{ConversationRepository, RepoError};
use uuid::Uuid;

pub struct PgConversationRepository {
    pool: PgPool,
}

impl PgConversationRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }

    pub(super) fn pool(&self) -> &PgPool {
        &self.pool
    }
}

fn to_u32(n: i64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[async_trait]
impl ConversationRepository for PgConversationRepository {
    async fn record(&self, new: NewConversation) -> Result<(Conversation, bool), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let inserted: Option<ConversationRow> = diesel::insert_into(conversations::table)
            .values((
                conversations::id.eq(Uuid::now_v7()),
                conversations::project_id.eq(new.project_id.0),
                conversations::mr_iid.eq(new.mr_iid),
                conversations::note_id.eq(&new.note_id),
                conversations::thread_id.eq(&new.thread_id),
                conversations::author_id.eq(&new.author.id),
                conversations::author_username.eq(&new.author.username),
                conversations::author_is_bot.eq(new.author.is_bot),
                conversations::body.eq(&new.body),
                conversations::addressed.eq(new.addressed.as_str()),
                conversations::command.eq(&new.command),
            ))
            .on_conflict((conversations::project_id, conversations::note_id))
            .do_nothing()
            .returning(ConversationRow::as_returning())
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        if let Some(row) = inserted {
            return Ok((row.try_into()?, true));
        }
        let row: ConversationRow = conversations::table
            .filter(conversations::project_id.eq(new.project_id.0))
            .filter(conversations::note_id.eq(&new.note_id))
            .select(ConversationRow::as_select())
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok((row.try_into()?, false))
    }

    async fn get(&self, id: Uuid) -> Result<Conversation, RepoError> {
        let mut conn = conn(&self.pool).await?;
        conversations::table
            .find(id)
            .select(ConversationRow::as_select())
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .try_into()
    }

    async fn finish(&self, id: Uuid, end: ConversationEnd) -> Result<bool, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let queued: &str = ConversationStatus::Queued.as_str();
        let n = diesel::update(conversations::table.find(id))
            .filter(conversations::status.eq(queued))
            .set((
                conversations::status.eq(end.status.as_str()),
                conversations::answer.eq(end.answer),
                conversations::answer_note_id.eq(end.answer_note_id),
                conversations::detail.eq(end.detail),
                conversations::answered_at.eq(Utc::now()),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        if n == 0 {
            // Unknown, or ended already: only the first is an error.
            conversations::table
                .find(id)
                .select(conversations::id)
                .first::<Uuid>(&mut conn)
                .await
                .map_err(map_diesel_error)?;
        }
        Ok(n > 0)
    }

    async fn for_mr(
        &self,
        project: ProjectId,
        mr_iid: i64,
    ) -> Result<Vec<Conversation>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<ConversationRow> = conversations::table
            .filter(conversations::project_id.eq(project.0))
            .filter(conversations::mr_iid.eq(mr_iid))
            .order((conversations::created_at.asc(), conversations::id.asc()))
            .select(ConversationRow::as_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(TryInto::try_into).collect()
    }

    async fn recent(
        &self,
        project: ProjectId,
        mr_iid: i64,
        author: &str,
        since: DateTime<Utc>,
        except: Uuid,
    ) -> Result<RecentTalk, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let ignored: &str = ConversationStatus::Ignored.as_str();
        let counted = || {
            conversations::table
                .filter(conversations::project_id.eq(project.0))
                .filter(conversations::created_at.ge(since))
                .filter(conversations::id.ne(except))
                .filter(conversations::status.ne(ignored))
        };
        let in_mr: i64 = counted()
            .filter(conversations::mr_iid.eq(mr_iid))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let by_author: i64 = counted()
            .filter(conversations::author_username.eq(author))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(RecentTalk {
            in_mr: to_u32(in_mr),
            by_author: to_u32(by_author),
        })
    }

    async fn controls(&self, project: ProjectId, mr_iid: i64) -> Result<MrControls, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let row: Option<ControlsRow> = merge_request_controls::table
            .find((project.0, mr_iid))
            .select(ControlsRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        Ok(row.map(Into::into).unwrap_or_default())
    }

    async fn change_controls(
        &self,
        project: ProjectId,
        mr_iid: i64,
        change: ControlChange,
        by: &str,
    ) -> Result<MrControls, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let now = Utc::now();
        let key = (
            merge_request_controls::project_id.eq(project.0),
            merge_request_controls::mr_iid.eq(mr_iid),
            merge_request_controls::changed_by.eq(by),
            merge_request_controls::updated_at.eq(now),
        );
        let insert = diesel::insert_into(merge_request_controls::table);
        let conflict = (
            merge_request_controls::project_id,
            merge_request_controls::mr_iid,
        );
        let touched = (
            merge_request_controls::changed_by.eq(excluded(merge_request_controls::changed_by)),
            merge_request_controls::updated_at.eq(excluded(merge_request_controls::updated_at)),
        );
        let row: ControlsRow = match change {
            ControlChange::Pause | ControlChange::Resume => {
                let paused = change == ControlChange::Pause;
                insert
                    .values((key, merge_request_controls::paused.eq(paused)))
                    .on_conflict(conflict)
                    .do_update()
                    .set((merge_request_controls::paused.eq(paused), touched))
                    .returning(ControlsRow::as_returning())
                    .get_result(&mut conn)
                    .await
            }
            ControlChange::Ignore => {
                insert
                    .values((key, merge_request_controls::ignored.eq(true)))
                    .on_conflict(conflict)
                    .do_update()
                    .set((merge_request_controls::ignored.eq(true), touched))
                    .returning(ControlsRow::as_returning())
                    .get_result(&mut conn)
                    .await
            }
        }
        .map_err(map_diesel_error)?;
        Ok(row.into())
    }

    async fn note_refusal(&self, project: ProjectId, mr_iid: i64) -> Result<bool, RepoError> {
        let mut conn = conn(&self.pool).await?;
        // One statement: of two outsiders asking at once, one is refused.
        let noted = diesel::sql_query(
            "INSERT INTO merge_request_controls (project_id, mr_iid, refused_at, updated_at)
             VALUES ($1, $2, now(), now())
             ON CONFLICT (project_id, mr_iid) DO UPDATE SET refused_at = now()
               WHERE merge_request_controls.refused_at IS NULL",
        )
        .bind::<diesel::sql_types::Uuid, _>(project.0)
        .bind::<diesel::sql_types::BigInt, _>(mr_iid)
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(noted > 0)
    }
}
