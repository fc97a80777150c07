//! API keys: shown once at creation, stored as a hash, acting as their owner.

use chrono::{DateTime, Utc};
use uuid::Uuid;

/// A stored key. `prefix` is the first characters of the key, kept so a user can
/// tell their keys apart; the key itself cannot be recovered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    pub id: Uuid,
    pub user_id: Uuid,
    pub name: String,
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone)]
pub struct NewApiKey {
    pub user_id: Uuid,
    pub name: String,
    pub prefix: String,
    pub key_hash: String,
    pub expires_at: Option<DateTime<Utc>>,
}
