//! Which platform configs a webhook delivery comes from: the enabled configs of its
//! platform whose webhook secret its proof matches (more than one when several configs
//! share a secret; the intake reads the event for each).

use super::PlatformConfigService;
use crate::model::{PlatformType, WebhookProof};
use crate::services::ServiceError;
use uuid::Uuid;

/// Why a delivery names no config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownSender {
    /// No enabled config of the platform exists at all.
    NoConfig,
    /// Configs exist; the proof matches none of their secrets.
    NoMatch,
}

impl PlatformConfigService {
    /// The enabled `platform` configs whose webhook secret `proof` matches.
    ///
    /// # Errors
    /// `Ok(Err(..))` says why none matched; `Err` is a store failure.
    pub async fn webhook_senders(
        &self,
        platform: PlatformType,
        proof: WebhookProof<'_>,
    ) -> Result<Result<Vec<Uuid>, UnknownSender>, ServiceError> {
        let configs = self.configs.list(Some(platform), true).await?;
        if configs.is_empty() {
            return Ok(Err(UnknownSender::NoConfig));
        }
        let senders: Vec<Uuid> = configs
            .iter()
            .filter(|c| {
                c.webhook_secret
                    .as_ref()
                    .is_some_and(|secret| self.webhooks.proves(secret.expose(), &proof))
            })
            .map(|c| c.id)
            .collect();
        Ok(if senders.is_empty() {
            Err(UnknownSender::NoMatch)
        } else {
            Ok(senders)
        })
    }
}
