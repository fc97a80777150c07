//! What every webhook and runner claim reads and almost nothing writes (platform
//! configs, projects by their platform id and by id, the global settings, AI
//! configs), kept in memory and dropped the moment any replica changes it.
//!
//! A trigger on each of those tables sends `NOTIFY reviewd_config` when a statement
//! changes it (migration `…000009_config_cache`); each process keeps one `LISTEN`
//! connection, and every notification starts a new *generation*: entries of an
//! older one are not served. Writes through this process also start one at once,
//! without waiting for their notification. While the listening connection is down
//! nothing is served from memory, and no entry is served after [`MAX_AGE`] (a
//! backstop against a connection that hangs without failing).

use diesel::ConnectionError;
use diesel_async::{AsyncConnection, AsyncPgConnection};
use futures_util::StreamExt;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The backstop: an entry is read again after this long whatever was heard.
const MAX_AGE: Duration = Duration::from_secs(5);
/// Keys kept per kind before the kind is emptied (projects: one per repository a
/// webhook names, bounded by the projects synced).
const MAX_KEYS: usize = 20_000;
const CHANNEL: &str = "reviewd_config";

#[derive(Default)]
struct State {
    generation: AtomicU64,
    listening: AtomicBool,
}

/// The current generation when a read began: an entry stored with it is served
/// only while nothing changed since. `None` while nothing may be kept.
#[derive(Clone, Copy)]
pub(crate) struct Ticket(Option<u64>);

/// One kind of entry (configs by type, projects by platform id...).
pub(crate) struct Slot<K, V> {
    entries: Mutex<HashMap<K, (u64, Instant, V)>>,
}

impl<K: Eq + Hash, V: Clone> Default for Slot<K, V> {
    fn default() -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Eq + Hash, V: Clone> Slot<K, V> {
    pub(crate) fn get(&self, cache: &ConfigCache, key: &K) -> Option<V> {
        let Ticket(Some(now)) = cache.ticket() else {
            return None;
        };
        let entries = self.entries.lock().ok()?;
        let (generation, at, value) = entries.get(key)?;
        (*generation == now && at.elapsed() < MAX_AGE).then(|| value.clone())
    }

    /// Keeps `value`, read after `ticket` was taken.
    pub(crate) fn put(&self, ticket: Ticket, key: K, value: &V) {
        let Ticket(Some(generation)) = ticket else {
            return;
        };
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= MAX_KEYS {
                entries.clear();
            }
            entries.insert(key, (generation, Instant::now(), value.clone()));
        }
    }
}

/// Shared by the repositories of one process.
#[derive(Clone, Default)]
pub struct ConfigCache {
    state: Arc<State>,
}

impl ConfigCache {
    /// A cache that listens on `database_url` from a task on the current runtime;
    /// it serves nothing until the listening connection is up.
    #[must_use]
    pub fn listening(database_url: &str) -> ConfigCache {
        let cache = ConfigCache::default();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(listen(cache.clone(), database_url.to_owned()));
        }
        cache
    }

    pub(crate) fn ticket(&self) -> Ticket {
        Ticket(
            self.state
                .listening
                .load(Ordering::Acquire)
                .then(|| self.state.generation.load(Ordering::Acquire)),
        )
    }

    /// Runs a write, then starts a new generation whatever it returned (a failure
    /// may still have committed): after the commit, a read sees the change.
    pub(crate) async fn after<T>(&self, write: impl std::future::Future<Output = T>) -> T {
        let result = write.await;
        self.changed();
        result
    }

    /// Something changed: nothing kept so far is served again.
    pub(crate) fn changed(&self) {
        self.state.generation.fetch_add(1, Ordering::AcqRel);
    }

    fn set_listening(&self, on: bool) {
        // A new generation either way: what changed while nobody listened is unknown.
        self.changed();
        self.state.listening.store(on, Ordering::Release);
    }
}

async fn listen(cache: ConfigCache, database_url: String) {
    let mut failures = 0u32;
    loop {
        match listen_once(&cache, &database_url).await {
            Ok(()) => failures = 0,
            Err(e) => {
                failures += 1;
                // Once per outage, not once per retry.
                if failures == 1 {
                    tracing::warn!(error = %e, "config_cache.listen_failed");
                }
            }
        }
        cache.set_listening(false);
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Listens until the connection fails; `Ok` when it ended without an error.
async fn listen_once(cache: &ConfigCache, database_url: &str) -> Result<(), String> {
    let mut conn = AsyncPgConnection::establish(database_url)
        .await
        .map_err(|e: ConnectionError| e.to_string())?;
    // Named in full: `RunQueryDsl::load` would shadow the atomics' `load` here.
    diesel_async::RunQueryDsl::execute(diesel::sql_query(format!("LISTEN {CHANNEL}")), &mut conn)
        .await
        .map_err(|e| e.to_string())?;
    cache.set_listening(true);
    let mut notifications = std::pin::pin!(conn.notifications_stream());
    while let Some(notification) = notifications.next().await {
        notification.map_err(|e| e.to_string())?;
        cache.changed();
    }
    Ok(())
}
