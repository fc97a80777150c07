use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::model::{ApiKey, NewApiKey, NewSession, NewUser, Session, User, UserChanges};
use reviewd_domain::ports::{ApiKeyRepository, RepoError, SessionRepository, UserRepository};
use reviewd_domain::{Page, PageRequest};
use std::sync::Mutex;
use uuid::Uuid;

#[derive(Default)]
struct State {
    users: Vec<(User, String)>,
    sessions: Vec<(Session, String)>,
    keys: Vec<(ApiKey, String)>,
}

/// Users, sessions and API keys in one in-memory store, so joins behave as in Postgres.
#[derive(Default)]
pub struct InMemoryAuthStore {
    state: Mutex<State>,
}

impl InMemoryAuthStore {
    fn user(state: &State, id: Uuid) -> Option<User> {
        state
            .users
            .iter()
            .find(|(u, _)| u.id == id)
            .map(|(u, _)| u.clone())
    }
}

fn page_of<T: Clone>(all: Vec<T>, page: PageRequest) -> Page<T> {
    let total = all.len() as u64;
    let items = all
        .into_iter()
        .skip(page.offset() as usize)
        .take(page.limit() as usize)
        .collect();
    Page {
        items,
        total,
        request: page,
    }
}

#[async_trait]
impl UserRepository for InMemoryAuthStore {
    async fn create(&self, new: NewUser) -> Result<User, RepoError> {
        let mut state = self.state.lock().unwrap();
        if state.users.iter().any(|(u, _)| u.email == new.email) {
            return Err(RepoError::Conflict("users_email_key".into()));
        }
        if new.is_root && state.users.iter().any(|(u, _)| u.is_root) {
            return Err(RepoError::Conflict("users_single_root".into()));
        }
        let now = Utc::now();
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
        state.users.push((user.clone(), new.password_hash));
        Ok(user)
    }

    async fn get(&self, id: Uuid) -> Result<User, RepoError> {
        Self::user(&self.state.lock().unwrap(), id).ok_or(RepoError::NotFound)
    }

    async fn find_credentials(&self, email: &str) -> Result<Option<(User, String)>, RepoError> {
        Ok(self
            .state
            .lock()
            .unwrap()
            .users
            .iter()
            .find(|(u, _)| u.email == email)
            .cloned())
    }

    async fn list(&self, page: PageRequest) -> Result<Page<User>, RepoError> {
        let all = self
            .state
            .lock()
            .unwrap()
            .users
            .iter()
            .map(|(u, _)| u.clone())
            .collect();
        Ok(page_of(all, page))
    }

    async fn update(&self, id: Uuid, changes: UserChanges) -> Result<User, RepoError> {
        let mut state = self.state.lock().unwrap();
        if let Some(email) = &changes.email
            && state
                .users
                .iter()
                .any(|(u, _)| &u.email == email && u.id != id)
        {
            return Err(RepoError::Conflict("users_email_key".into()));
        }
        let (user, hash) = state
            .users
            .iter_mut()
            .find(|(u, _)| u.id == id)
            .ok_or(RepoError::NotFound)?;
        if let Some(v) = changes.email {
            user.email = v;
        }
        if let Some(v) = changes.name {
            user.name = v;
        }
        if let Some(v) = changes.password_hash {
            *hash = v;
        }
        if let Some(v) = changes.role {
            user.role = v;
        }
        if let Some(v) = changes.disabled {
            user.disabled = v;
        }
        user.updated_at = Utc::now();
        Ok(user.clone())
    }

    async fn root_exists(&self) -> Result<bool, RepoError> {
        Ok(self
            .state
            .lock()
            .unwrap()
            .users
            .iter()
            .any(|(u, _)| u.is_root))
    }
}

#[async_trait]
impl SessionRepository for InMemoryAuthStore {
    async fn create(&self, new: NewSession) -> Result<Session, RepoError> {
        let mut state = self.state.lock().unwrap();
        Self::user(&state, new.user_id).ok_or(RepoError::NotFound)?;
        let session = Session {
            id: Uuid::new_v4(),
            user_id: new.user_id,
            created_at: Utc::now(),
            expires_at: new.expires_at,
        };
        state.sessions.push((session.clone(), new.token_hash));
        Ok(session)
    }

    async fn find_active(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<(Session, User)>, RepoError> {
        let state = self.state.lock().unwrap();
        Ok(state
            .sessions
            .iter()
            .find(|(s, h)| h == token_hash && s.expires_at > now)
            .and_then(|(s, _)| Self::user(&state, s.user_id).map(|u| (s.clone(), u))))
    }

    async fn delete(&self, token_hash: &str) -> Result<bool, RepoError> {
        let mut state = self.state.lock().unwrap();
        let before = state.sessions.len();
        state.sessions.retain(|(_, h)| h != token_hash);
        Ok(state.sessions.len() < before)
    }

    async fn delete_expired(&self, now: DateTime<Utc>) -> Result<u64, RepoError> {
        let mut state = self.state.lock().unwrap();
        let before = state.sessions.len();
        state.sessions.retain(|(s, _)| s.expires_at > now);
        Ok((before - state.sessions.len()) as u64)
    }
}

#[async_trait]
impl ApiKeyRepository for InMemoryAuthStore {
    async fn create(&self, new: NewApiKey) -> Result<ApiKey, RepoError> {
        let mut state = self.state.lock().unwrap();
        let key = ApiKey {
            id: Uuid::new_v4(),
            user_id: new.user_id,
            name: new.name,
            prefix: new.prefix,
            created_at: Utc::now(),
            expires_at: new.expires_at,
            last_used_at: None,
            revoked_at: None,
        };
        state.keys.push((key.clone(), new.key_hash));
        Ok(key)
    }

    async fn list_for_user(
        &self,
        user_id: Uuid,
        page: PageRequest,
    ) -> Result<Page<ApiKey>, RepoError> {
        let state = self.state.lock().unwrap();
        let all = state
            .keys
            .iter()
            .rev()
            .filter(|(k, _)| k.user_id == user_id)
            .map(|(k, _)| k.clone())
            .collect();
        Ok(page_of(all, page))
    }

    async fn find_active(
        &self,
        key_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<(ApiKey, User)>, RepoError> {
        let state = self.state.lock().unwrap();
        Ok(state
            .keys
            .iter()
            .find(|(k, h)| {
                h == key_hash && k.revoked_at.is_none() && k.expires_at.is_none_or(|e| e > now)
            })
            .and_then(|(k, _)| Self::user(&state, k.user_id).map(|u| (k.clone(), u))))
    }

    async fn revoke(
        &self,
        id: Uuid,
        owner: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError> {
        let mut state = self.state.lock().unwrap();
        let key = state
            .keys
            .iter_mut()
            .find(|(k, _)| {
                k.id == id && k.revoked_at.is_none() && owner.is_none_or(|o| o == k.user_id)
            })
            .ok_or(RepoError::NotFound)?;
        key.0.revoked_at = Some(now);
        Ok(())
    }

    async fn touch(&self, id: Uuid, now: DateTime<Utc>) -> Result<(), RepoError> {
        let mut state = self.state.lock().unwrap();
        if let Some((key, _)) = state.keys.iter_mut().find(|(k, _)| k.id == id) {
            key.last_used_at = Some(now);
        }
        Ok(())
    }
}
