//! The row of the deployment's review settings (`global_settings`, one row).

use crate::schema::global_settings;
use diesel::prelude::*;
use reviewd_domain::model::GlobalSettings;

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = global_settings, check_for_backend(diesel::pg::Pg))]
pub(crate) struct GlobalSettingsRow {
    auto_review: bool,
    send_to_platform: bool,
    file_ignore_patterns: Vec<String>,
    review_commands: Vec<String>,
}

impl From<GlobalSettingsRow> for GlobalSettings {
    fn from(r: GlobalSettingsRow) -> Self {
        GlobalSettings {
            auto_review: r.auto_review,
            send_to_platform: r.send_to_platform,
            file_ignore_patterns: r.file_ignore_patterns,
            review_commands: r.review_commands,
        }
    }
}
