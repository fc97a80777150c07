//! Who may call: users, sessions, API keys and the login throttle.

use super::infra::Infra;
use crate::config::Config;
use reviewd_crypto::Argon2PasswordHasher;
use reviewd_domain::ports::PasswordHasher;
use reviewd_domain::services::login_guard::LoginGuard;
use reviewd_domain::services::{ApiKeyService, AuthService, AuthSettings, UserService};
use reviewd_queue_redis::RedisLoginThrottle;
use reviewd_store_postgres::{PgApiKeyRepository, PgSessionRepository, PgUserRepository};
use std::sync::Arc;
use std::time::Duration;

pub(super) struct Access {
    pub auth: AuthService,
    pub api_keys: ApiKeyService,
    pub users: UserService,
}

pub(super) fn access(config: &Config, infra: &Infra) -> Access {
    let users = Arc::new(PgUserRepository::new(infra.pool.clone()));
    let api_key_repo = Arc::new(PgApiKeyRepository::new(infra.pool.clone()));
    let passwords: Arc<dyn PasswordHasher> = Arc::new(Argon2PasswordHasher::new());
    let throttle = Arc::new(RedisLoginThrottle::new(
        infra.redis.clone(),
        &config.queue_key_prefix,
        reviewd_domain::services::login_guard::LOGIN_WINDOW,
    ));
    let auth = AuthService::new(
        users.clone(),
        Arc::new(PgSessionRepository::new(infra.pool.clone())),
        api_key_repo.clone(),
        passwords.clone(),
        infra.tokens.clone(),
        LoginGuard::new(throttle, Arc::new(reviewd_adapters::clock::SystemClock)),
        AuthSettings {
            session_ttl: Duration::from_secs(u64::from(config.session_ttl_hours) * 3600),
        },
    );
    Access {
        auth,
        api_keys: ApiKeyService::new(api_key_repo, infra.tokens.clone()),
        users: UserService::new(users, passwords),
    }
}
