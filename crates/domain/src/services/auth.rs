//! Logging in and out, and turning a presented token into a [`Principal`].

use super::ServiceError;
use super::login_guard::LoginGuard;
use crate::model::user::normalize_email;
use crate::model::{AuthMethod, NewSession, NewUser, Principal, Role, User};
use crate::ports::{
    ApiKeyRepository, PasswordHasher, SessionRepository, TokenHasher, UserRepository,
};
use chrono::Utc;
use std::sync::Arc;
use std::time::Duration;

/// Prefix of session cookie tokens.
pub const SESSION_TOKEN_PREFIX: &str = "rvs_";

#[derive(Debug, Clone)]
pub struct AuthSettings {
    /// How long a session cookie stays valid after login.
    pub session_ttl: Duration,
}

impl Default for AuthSettings {
    fn default() -> Self {
        Self {
            session_ttl: Duration::from_secs(7 * 24 * 3600),
        }
    }
}

/// Where a login comes from; the address is also a throttling key.
#[derive(Debug, Clone, Default)]
pub struct ClientInfo {
    pub ip: Option<String>,
    pub user_agent: Option<String>,
}

/// A successful login: the user and the session token for the cookie.
#[derive(Debug, Clone)]
pub struct LoggedIn {
    pub user: User,
    pub session_token: String,
    pub expires_at: chrono::DateTime<Utc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootOutcome {
    Created,
    AlreadyExists,
}

pub struct AuthService {
    users: Arc<dyn UserRepository>,
    sessions: Arc<dyn SessionRepository>,
    api_keys: Arc<dyn ApiKeyRepository>,
    passwords: Arc<dyn PasswordHasher>,
    tokens: Arc<dyn TokenHasher>,
    guard: LoginGuard,
    settings: AuthSettings,
}

impl AuthService {
    pub fn new(
        users: Arc<dyn UserRepository>,
        sessions: Arc<dyn SessionRepository>,
        api_keys: Arc<dyn ApiKeyRepository>,
        passwords: Arc<dyn PasswordHasher>,
        tokens: Arc<dyn TokenHasher>,
        guard: LoginGuard,
        settings: AuthSettings,
    ) -> Self {
        Self {
            users,
            sessions,
            api_keys,
            passwords,
            tokens,
            guard,
            settings,
        }
    }

    /// Checks the password and opens a session. Failures are counted per email and
    /// address, per address and per email ([`super::login_guard`]): the first two
    /// refuse past their limits, even the right password; the email's only slows.
    ///
    /// # Errors
    /// `Throttled`, `InvalidCredentials` (unknown email, wrong password or disabled
    /// account: the caller cannot tell which), `Unavailable`.
    pub async fn login(
        &self,
        email: &str,
        password: &str,
        client: ClientInfo,
    ) -> Result<LoggedIn, ServiceError> {
        let email = normalize_email(email);
        let ip = client.ip.as_deref();
        self.guard.admit(&email, ip).await?;

        let found = self.users.find_credentials(&email).await?;
        let user = match found {
            Some((user, hash)) => {
                let matches = self.passwords.verify(password, &hash).await?;
                (matches && !user.disabled).then_some(user)
            }
            None => {
                // Spend the same time as a real check so timing does not reveal which
                // emails have accounts.
                self.passwords.hash(password).await?;
                None
            }
        };
        let Some(user) = user else {
            self.guard.failed(&email, ip).await?;
            tracing::info!(login.email_known = false, "login.failed");
            return Err(ServiceError::InvalidCredentials);
        };
        self.guard.succeeded(&email, ip).await?;

        let session_token = self.tokens.generate(SESSION_TOKEN_PREFIX);
        let ttl = chrono::Duration::from_std(self.settings.session_ttl)
            .map_err(|e| ServiceError::Internal(e.to_string()))?;
        let session = self
            .sessions
            .create(NewSession {
                user_id: user.id,
                token_hash: self.tokens.hash(&session_token),
                user_agent: client.user_agent,
                ip: client.ip,
                expires_at: Utc::now() + ttl,
            })
            .await?;
        tracing::info!(user.id = %user.id, session.id = %session.id, "login.succeeded");
        Ok(LoggedIn {
            user,
            session_token,
            expires_at: session.expires_at,
        })
    }

    /// Ends the session of this token; unknown tokens are ignored.
    ///
    /// # Errors
    /// `Unavailable` when the store is down.
    pub async fn logout(&self, session_token: &str) -> Result<(), ServiceError> {
        self.sessions
            .delete(&self.tokens.hash(session_token))
            .await?;
        Ok(())
    }

    /// The caller behind a session cookie.
    ///
    /// # Errors
    /// `Unauthenticated` for an unknown or expired token or a disabled user.
    pub async fn authenticate_session(&self, token: &str) -> Result<Principal, ServiceError> {
        if !token.starts_with(SESSION_TOKEN_PREFIX) {
            return Err(ServiceError::Unauthenticated);
        }
        let found = self
            .sessions
            .find_active(&self.tokens.hash(token), Utc::now())
            .await?;
        match found {
            Some((session, user)) if !user.disabled => Ok(Principal {
                user,
                method: AuthMethod::Session {
                    session_id: session.id,
                },
            }),
            _ => Err(ServiceError::Unauthenticated),
        }
    }

    /// The caller behind an API key.
    ///
    /// # Errors
    /// `Unauthenticated` for an unknown, revoked or expired key or a disabled owner.
    pub async fn authenticate_api_key(&self, key: &str) -> Result<Principal, ServiceError> {
        let now = Utc::now();
        let found = self
            .api_keys
            .find_active(&self.tokens.hash(key), now)
            .await?;
        let Some((api_key, user)) = found.filter(|(_, user)| !user.disabled) else {
            return Err(ServiceError::Unauthenticated);
        };
        if let Err(err) = self.api_keys.touch(api_key.id, now).await {
            // Recording the last use is informative only; the call itself goes on.
            tracing::warn!(api_key.id = %api_key.id, error = %err, "api_key.touch_failed");
        }
        Ok(Principal {
            user,
            method: AuthMethod::ApiKey { key_id: api_key.id },
        })
    }

    /// Creates the root admin once; later calls (and other replicas racing) do nothing.
    ///
    /// # Errors
    /// `Unavailable`/`Internal` on store failures.
    pub async fn ensure_root(
        &self,
        email: &str,
        password: &str,
    ) -> Result<RootOutcome, ServiceError> {
        if self.users.root_exists().await? {
            return Ok(RootOutcome::AlreadyExists);
        }
        let new_user = NewUser {
            email: normalize_email(email),
            name: "Root".to_owned(),
            password_hash: self.passwords.hash(password).await?,
            role: Role::Admin,
            is_root: true,
        };
        match self.users.create(new_user).await {
            Ok(user) => {
                tracing::info!(user.id = %user.id, "root_user.created");
                Ok(RootOutcome::Created)
            }
            Err(crate::ports::RepoError::Conflict(_)) => Ok(RootOutcome::AlreadyExists),
            Err(other) => Err(other.into()),
        }
    }
}
