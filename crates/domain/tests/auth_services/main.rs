//! Domain services against the in-memory fakes of their ports.

mod api_keys;
mod logins;
mod users;

use reviewd_domain::PageRequest;
use reviewd_domain::model::{AuthMethod, Role};
use reviewd_domain::services::login_guard::LoginGuard;
use reviewd_domain::services::{
    ApiKeyService, AuthService, AuthSettings, ClientInfo, NewUserInput, RootOutcome, ServiceError,
    UserService, UserUpdateInput,
};
use reviewd_testkit::MemoryStore;
use reviewd_testkit::fakes::{FakeClock, FakePasswordHasher, FakeTokenHasher, InMemoryThrottle};
use std::sync::Arc;
use std::time::Duration;

struct World {
    auth: AuthService,
    keys: ApiKeyService,
    users: UserService,
    throttle: Arc<InMemoryThrottle>,
    clock: Arc<FakeClock>,
}

fn world() -> World {
    let store = Arc::new(MemoryStore::default());
    let tokens = Arc::new(FakeTokenHasher::default());
    let passwords = Arc::new(FakePasswordHasher::default());
    let clock = Arc::new(FakeClock::default());
    let throttle = Arc::new(InMemoryThrottle::new(clock.clone()));
    World {
        auth: AuthService::new(
            store.clone(),
            store.clone(),
            store.clone(),
            passwords.clone(),
            tokens.clone(),
            LoginGuard::new(throttle.clone(), clock.clone()),
            AuthSettings {
                session_ttl: Duration::from_secs(3600),
            },
        ),
        keys: ApiKeyService::new(store.clone(), tokens),
        users: UserService::new(store, passwords),
        throttle,
        clock,
    }
}

fn client(ip: &str) -> ClientInfo {
    ClientInfo {
        ip: Some(ip.into()),
        user_agent: None,
    }
}
