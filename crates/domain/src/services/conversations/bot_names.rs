//! reviewd's own username on each platform connection, asked of the platform once
//! in a while rather than for every comment: it tells which comments mention
//! reviewd and which are its own.

use super::ConversationService;
use crate::model::Project;
use crate::ports::{HostingPlatform, PlatformError};
use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use uuid::Uuid;

/// How long a connection's username is trusted: a token replaced by another
/// account's is noticed within this.
const KEPT_FOR: Duration = Duration::minutes(10);

/// Usernames by platform connection, with when they were asked.
#[derive(Debug, Default)]
pub(super) struct BotNames(Mutex<HashMap<Uuid, (String, DateTime<Utc>)>>);

impl BotNames {
    /// The connection's username, when it was asked within [`KEPT_FOR`].
    pub(super) fn known(&self, config: Uuid, now: DateTime<Utc>) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&config)
            .filter(|(_, at)| now - *at < KEPT_FOR)
            .map(|(name, _)| name.clone())
    }
}

impl ConversationService {
    /// reviewd's username on the project's platform connection.
    pub(super) async fn bot_name(
        &self,
        project: &Project,
        platform: &dyn HostingPlatform,
    ) -> Result<String, PlatformError> {
        let now = self.parts.clock.now();
        let config = project.platform_config_id;
        if let Some(name) = self.bots.known(config, now) {
            return Ok(name);
        }
        let name = platform.token_identity().await?.username;
        self.bots
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(config, (name.clone(), now));
        Ok(name)
    }
}
