//! Users, sessions and API keys, with the schema's rules: unique emails, one root,
//! unique token and key hashes, and credentials that belong to an existing user.

use super::MemoryStore;
use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, Utc};
use reviewd_domain::model::{ApiKey, NewApiKey, NewSession, NewUser, Session, User, UserChanges};
use reviewd_domain::ports::{
    ApiKeyRepository, RepoError, ResetCaller, SessionRepository, UserRepository,
};
use reviewd_domain::{Page, PageRequest};
use uuid::Uuid;

/// As `PgApiKeyRepository`: busy keys do not cost a write per request.
const TOUCH_INTERVAL: TimeDelta = TimeDelta::seconds(60);

/// Each row with the hash the store keeps beside it, in insertion (creation) order.
#[derive(Debug, Default)]
pub(crate) struct AuthTables {
    users: Vec<(User, String)>,
    sessions: Vec<(Session, String)>,
    keys: Vec<(ApiKey, String)>,
}

impl AuthTables {
    pub(super) fn user(&self, id: Uuid) -> Result<&User, RepoError> {
        self.users
            .iter()
            .map(|(u, _)| u)
            .find(|u| u.id == id)
            .ok_or(RepoError::NotFound)
    }

    fn email_free(&self, email: &str, except: Option<Uuid>) -> Result<(), RepoError> {
        let taken = |u: &User| u.email == email && Some(u.id) != except;
        if self.users.iter().any(|(u, _)| taken(u)) {
            return Err(RepoError::Conflict("users_email_key".into()));
        }
        Ok(())
    }

    /// The caller's user and the one credential they came with: what a reset keeps.
    pub(crate) fn kept_for(self, caller: &ResetCaller) -> Self {
        let theirs = |user_id: Uuid, id: Uuid, credential: Option<Uuid>| {
            user_id == caller.user_id && Some(id) == credential
        };
        Self {
            users: self
                .users
                .into_iter()
                .filter(|(u, _)| u.id == caller.user_id)
                .collect(),
            sessions: self
                .sessions
                .into_iter()
                .filter(|(s, _)| theirs(s.user_id, s.id, caller.session_id))
                .collect(),
            keys: self
                .keys
                .into_iter()
                .filter(|(k, _)| theirs(k.user_id, k.id, caller.api_key_id))
                .collect(),
        }
    }
}

/// The first row whose hash is `hash`, if it passes `active`, with its user.
fn find_by_hash<T: Clone>(
    rows: &[(T, String)],
    users: &AuthTables,
    hash: &str,
    active: impl Fn(&T) -> Option<Uuid>,
) -> Option<(T, User)> {
    let (row, _) = rows.iter().find(|(_, h)| h == hash)?;
    let user = users.user(active(row)?).ok()?;
    Some((row.clone(), user.clone()))
}

#[async_trait]
impl UserRepository for MemoryStore {
    async fn create(&self, new: NewUser) -> Result<User, RepoError> {
        let now = self.now();
        let auth = &mut self.tables().auth;
        auth.email_free(&new.email, None)?;
        if new.is_root && auth.users.iter().any(|(u, _)| u.is_root) {
            return Err(RepoError::Conflict("users_single_root_idx".into()));
        }
        let user = User {
            id: Uuid::new_v4(),
            email: new.email,
            name: new.name,
            role: new.role,
            is_root: new.is_root,
            disabled: false,
            created_at: now,
            updated_at: now,
        };
        auth.users.push((user.clone(), new.password_hash));
        Ok(user)
    }

    async fn get(&self, id: Uuid) -> Result<User, RepoError> {
        self.tables().auth.user(id).cloned()
    }

    async fn find_credentials(&self, email: &str) -> Result<Option<(User, String)>, RepoError> {
        let auth = &self.tables().auth;
        Ok(auth.users.iter().find(|(u, _)| u.email == email).cloned())
    }

    async fn list(&self, page: PageRequest) -> Result<Page<User>, RepoError> {
        let auth = &self.tables().auth;
        let all = auth.users.iter().map(|(u, _)| u.clone()).collect();
        Ok(Page::from_all(all, page))
    }

    async fn update(&self, id: Uuid, changes: UserChanges) -> Result<User, RepoError> {
        let now = self.now();
        let auth = &mut self.tables().auth;
        // An unknown id updates no row: `NotFound` before any conflict, as in SQL.
        auth.user(id)?;
        if let Some(email) = &changes.email {
            auth.email_free(email, Some(id))?;
        }
        let (user, hash) = auth.users.iter_mut().find(|(u, _)| u.id == id).unwrap();
        if let Some(email) = changes.email {
            user.email = email;
        }
        if let Some(name) = changes.name {
            user.name = name;
        }
        if let Some(password_hash) = changes.password_hash {
            *hash = password_hash;
        }
        user.role = changes.role.unwrap_or(user.role);
        user.disabled = changes.disabled.unwrap_or(user.disabled);
        user.updated_at = now;
        Ok(user.clone())
    }

    async fn root_exists(&self) -> Result<bool, RepoError> {
        Ok(self.tables().auth.users.iter().any(|(u, _)| u.is_root))
    }
}

#[async_trait]
impl SessionRepository for MemoryStore {
    async fn create(&self, new: NewSession) -> Result<Session, RepoError> {
        let now = self.now();
        let auth = &mut self.tables().auth;
        auth.user(new.user_id)?;
        if auth.sessions.iter().any(|(_, h)| *h == new.token_hash) {
            return Err(RepoError::Conflict("sessions_token_hash_key".into()));
        }
        let session = Session {
            id: Uuid::new_v4(),
            user_id: new.user_id,
            created_at: now,
            expires_at: new.expires_at,
        };
        auth.sessions.push((session.clone(), new.token_hash));
        Ok(session)
    }

    async fn find_active(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<(Session, User)>, RepoError> {
        let auth = &self.tables().auth;
        Ok(find_by_hash(&auth.sessions, auth, token_hash, |s| {
            (s.expires_at > now).then_some(s.user_id)
        }))
    }

    async fn delete(&self, token_hash: &str) -> Result<bool, RepoError> {
        let sessions = &mut self.tables().auth.sessions;
        let before = sessions.len();
        sessions.retain(|(_, h)| h != token_hash);
        Ok(sessions.len() < before)
    }

    async fn delete_expired(&self, now: DateTime<Utc>) -> Result<u64, RepoError> {
        let sessions = &mut self.tables().auth.sessions;
        let before = sessions.len();
        sessions.retain(|(s, _)| s.expires_at > now);
        Ok((before - sessions.len()) as u64)
    }
}

#[async_trait]
impl ApiKeyRepository for MemoryStore {
    async fn create(&self, new: NewApiKey) -> Result<ApiKey, RepoError> {
        let now = self.now();
        let auth = &mut self.tables().auth;
        auth.user(new.user_id)?;
        if auth.keys.iter().any(|(_, h)| *h == new.key_hash) {
            return Err(RepoError::Conflict("api_keys_key_hash_key".into()));
        }
        let key = ApiKey {
            id: Uuid::new_v4(),
            user_id: new.user_id,
            name: new.name,
            prefix: new.prefix,
            created_at: now,
            expires_at: new.expires_at,
            last_used_at: None,
            revoked_at: None,
        };
        auth.keys.push((key.clone(), new.key_hash));
        Ok(key)
    }

    async fn list_for_user(
        &self,
        user_id: Uuid,
        page: PageRequest,
    ) -> Result<Page<ApiKey>, RepoError> {
        let auth = &self.tables().auth;
        let newest_first = auth.keys.iter().rev().map(|(k, _)| k);
        let all = newest_first.filter(|k| k.user_id == user_id).cloned();
        Ok(Page::from_all(all.collect(), page))
    }

    async fn find_active(
        &self,
        key_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<(ApiKey, User)>, RepoError> {
        let auth = &self.tables().auth;
        Ok(find_by_hash(&auth.keys, auth, key_hash, |k| {
            let live = k.revoked_at.is_none() && k.expires_at.is_none_or(|e| e > now);
            live.then_some(k.user_id)
        }))
    }

    async fn revoke(
        &self,
        id: Uuid,
        owner: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError> {
        let keys = &mut self.tables().auth.keys;
        let (key, _) = keys
            .iter_mut()
            .find(|(k, _)| {
                k.id == id && k.revoked_at.is_none() && owner.is_none_or(|o| o == k.user_id)
            })
            .ok_or(RepoError::NotFound)?;
        key.revoked_at = Some(now);
        Ok(())
    }

    async fn touch(&self, id: Uuid, now: DateTime<Utc>) -> Result<(), RepoError> {
        let keys = &mut self.tables().auth.keys;
        let stale = |k: &ApiKey| k.last_used_at.is_none_or(|t| t < now - TOUCH_INTERVAL);
        if let Some((key, _)) = keys.iter_mut().find(|(k, _)| k.id == id && stale(k)) {
            key.last_used_at = Some(now);
        }
        Ok(())
    }
}
