//! A review's findings that still stand, for the merge gate: every round's
//! comments but those a later round found implemented, whose thread was resolved,
//! or that reviewd conceded in their thread. A reader's 👎 or "won't fix" does not
//! settle one: anyone may react, the MR's author included.

use crate::schema::{review_comments as c, review_feedbacks as f};
use diesel::dsl::{count_star, exists, not};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use reviewd_domain::review::feedback::CONCESSION_NOTE;
use reviewd_domain::review::gate::StandingFindings;
use uuid::Uuid;

pub(super) async fn standing_findings(
    conn: &mut AsyncPgConnection,
    review_id: Uuid,
) -> QueryResult<StandingFindings> {
    let settled = f::table.filter(f::comment_id.eq(c::id.nullable())).filter(
        f::source
            .eq_any(["implemented", "resolved"])
            .or(f::note.eq(CONCESSION_NOTE)),
    );
    let rows: Vec<(String, i64)> = c::table
        .filter(c::review_id.eq(review_id))
        .filter(not(exists(settled)))
        .group_by(c::severity)
        .select((c::severity, count_star()))
        .load(conn)
        .await?;
    let mut standing = StandingFindings::default();
    for (severity, n) in rows {
        // The column's CHECK holds it to the three names.
        if let Ok(severity) = severity.parse() {
            standing.add(severity, u32::try_from(n).unwrap_or(u32::MAX));
        }
    }
    Ok(standing)
}
