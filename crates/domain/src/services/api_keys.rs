//! Creating, listing and revoking API keys.

use super::ServiceError;
use crate::model::{ApiKey, NewApiKey, Principal};
use crate::ports::{ApiKeyRepository, TokenHasher};
use crate::{Page, PageRequest};
use chrono::{DateTime, Utc};
use std::sync::Arc;
use uuid::Uuid;

/// Prefix of every API key, so leaked keys are recognisable by secret scanners.
pub const API_KEY_PREFIX: &str = "rvd_";
/// How many leading characters of a key are kept to tell keys apart.
const SHOWN_PREFIX_LEN: usize = 12;

/// A new key: the record and the key itself, which is never shown again.
#[derive(Debug, Clone)]
pub struct CreatedApiKey {
    pub key: ApiKey,
    pub secret: String,
}

pub struct ApiKeyService {
    keys: Arc<dyn ApiKeyRepository>,
    tokens: Arc<dyn TokenHasher>,
}

impl ApiKeyService {
    pub fn new(keys: Arc<dyn ApiKeyRepository>, tokens: Arc<dyn TokenHasher>) -> Self {
        Self { keys, tokens }
    }

    /// Creates a key owned by the caller.
    ///
    /// # Errors
    /// `Invalid` for an empty name or an expiry in the past.
    pub async fn create(
        &self,
        owner: &Principal,
        name: &str,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<CreatedApiKey, ServiceError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(ServiceError::invalid("name", "must not be empty"));
        }
        if expires_at.is_some_and(|at| at <= Utc::now()) {
            return Err(ServiceError::invalid("expiresAt", "must be in the future"));
        }
        let secret = self.tokens.generate(API_KEY_PREFIX);
        let key = self
            .keys
            .create(NewApiKey {
                user_id: owner.user.id,
                name: name.to_owned(),
                prefix: secret.chars().take(SHOWN_PREFIX_LEN).collect(),
                key_hash: self.tokens.hash(&secret),
                expires_at,
            })
            .await?;
        tracing::info!(api_key.id = %key.id, user.id = %owner.user.id, "api_key.created");
        Ok(CreatedApiKey { key, secret })
    }

    /// The caller's own keys.
    ///
    /// # Errors
    /// Store failures.
    pub async fn list(
        &self,
        owner: &Principal,
        page: PageRequest,
    ) -> Result<Page<ApiKey>, ServiceError> {
        Ok(self.keys.list_for_user(owner.user.id, page).await?)
    }

    /// Revokes one of the caller's keys; an admin may revoke anyone's.
    ///
    /// # Errors
    /// `NotFound` when the key does not exist, is already revoked, or belongs to
    /// someone else (for a non-admin).
    pub async fn revoke(&self, caller: &Principal, id: Uuid) -> Result<(), ServiceError> {
        let owner = (!caller.is_admin()).then_some(caller.user.id);
        self.keys
            .revoke(id, owner, Utc::now())
            .await
            .map_err(|e| ServiceError::from_repo(e, "API key"))?;
        tracing::info!(api_key.id = %id, user.id = %caller.user.id, "api_key.revoked");
        Ok(())
    }
}
