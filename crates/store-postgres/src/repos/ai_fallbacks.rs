//! The fallback lists of AI configurations (`ai_config_fallbacks`), read beside the
//! configurations' rows and replaced whole.

use crate::schema::ai_config_fallbacks as fallbacks;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use reviewd_domain::model::AiConfig;
use std::collections::HashMap;
use uuid::Uuid;

/// `configs` with their fallbacks, in each list's order.
pub(super) async fn attach(
    conn: &mut AsyncPgConnection,
    mut configs: Vec<AiConfig>,
) -> QueryResult<Vec<AiConfig>> {
    let ids: Vec<Uuid> = configs.iter().map(|c| c.id).collect();
    let rows: Vec<(Uuid, Uuid)> = fallbacks::table
        .filter(fallbacks::config_id.eq_any(&ids))
        .order((fallbacks::config_id, fallbacks::position))
        .select((fallbacks::config_id, fallbacks::fallback_id))
        .load(conn)
        .await?;
    let mut lists: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    for (config, fallback) in rows {
        lists.entry(config).or_default().push(fallback);
    }
    for config in &mut configs {
        config.fallback_ids = lists.remove(&config.id).unwrap_or_default();
    }
    Ok(configs)
}

/// One configuration with its fallbacks.
pub(super) async fn attach_one(
    conn: &mut AsyncPgConnection,
    config: AiConfig,
) -> QueryResult<AiConfig> {
    let mut one = attach(conn, vec![config]).await?;
    Ok(one.remove(0))
}

/// Replaces `config`'s list (the service has checked it: at most three, each once,
/// not itself; the table's constraints hold it to that too).
pub(super) async fn replace(
    conn: &mut AsyncPgConnection,
    config: Uuid,
    list: &[Uuid],
) -> QueryResult<()> {
    diesel::delete(fallbacks::table.filter(fallbacks::config_id.eq(config)))
        .execute(conn)
        .await?;
    let rows: Vec<_> = (1_i16..)
        .zip(list)
        .map(|(position, fallback)| {
            (
                fallbacks::config_id.eq(config),
                fallbacks::position.eq(position),
                fallbacks::fallback_id.eq(*fallback),
            )
        })
        .collect();
    if !rows.is_empty() {
        diesel::insert_into(fallbacks::table)
            .values(rows)
            .execute(conn)
            .await?;
    }
    Ok(())
}
