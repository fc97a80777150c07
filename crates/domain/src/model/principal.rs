//! Who is calling, and how they proved it.

use super::{Permission, User};
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    Session { session_id: Uuid },
    ApiKey { key_id: Uuid },
}

/// An authenticated caller: a user, through a session cookie or one of their API keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub user: User,
    pub method: AuthMethod,
}

impl Principal {
    #[must_use]
    pub fn allows(&self, permission: Permission) -> bool {
        self.user.role.allows(permission)
    }

    #[must_use]
    pub fn is_admin(&self) -> bool {
        self.user.role.is_admin()
    }

    /// The API key used for this call, if any (runners act through keys).
    #[must_use]
    pub fn api_key_id(&self) -> Option<Uuid> {
        match self.method {
            AuthMethod::ApiKey { key_id } => Some(key_id),
            AuthMethod::Session { .. } => None,
        }
    }
}
