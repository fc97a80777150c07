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
/// From this age one caller reads an entry again while the others are served it.
const REFRESH_AFTER: Duration = Duration::from_secs(4);
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
    entries: Mutex<HashMap<K, Entry<V>>>,
}

struct Entry<V> {
    generation: u64,
    at: Instant,
    value: V,
    /// A caller was sent to read it again ahead of its backstop.
    refreshing: bool,
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
        self.get_at(cache, key, Instant::now())
    }

    /// The entry as of `now`. Past [`REFRESH_AFTER`], one caller gets `None` and
    /// reads it again while the others are still served it; so the backstop does
    /// not send every request of that moment to the database at once (under a
    /// steady load of webhooks, that burst every 5 s was part of the tail).
    fn get_at(&self, cache: &ConfigCache, key: &K, now: Instant) -> Option<V> {
        let Ticket(Some(current)) = cache.ticket() else {
            return None;
        };
        let mut entries = self.entries.lock().ok()?;
        let entry = entries.get_mut(key)?;
        let age = now.saturating_duration_since(entry.at);
        if entry.generation != current || age >= MAX_AGE {
            return None;
        }
        if age >= REFRESH_AFTER && !entry.refreshing {
            entry.refreshing = true;
            return None;
        }
        Some(entry.value.clone())
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
            let entry = Entry {
                generation,
                at: Instant::now(),
                value: value.clone(),
                refreshing: false,
            };
            entries.insert(key, entry);
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

#[cfg(test)]
mod tests {
    use super::{ConfigCache, MAX_AGE, REFRESH_AFTER, Slot};
    use std::time::{Duration, Instant};

    fn listening() -> ConfigCache {
        let cache = ConfigCache::default();
        cache.set_listening(true);
        cache
    }

    #[test]
    fn one_caller_refreshes_ahead_of_the_backstop() {
        let cache = listening();
        let slot: Slot<u8, &str> = Slot::default();
        slot.put(cache.ticket(), 1, &"kept");
        let start = Instant::now();
        assert_eq!(slot.get_at(&cache, &1, start), Some("kept"));
        let late = start + REFRESH_AFTER + Duration::from_millis(10);
        assert_eq!(
            slot.get_at(&cache, &1, late),
            None,
            "the first caller reads again"
        );
        assert_eq!(
            slot.get_at(&cache, &1, late),
            Some("kept"),
            "the others are served"
        );
        assert_eq!(
            slot.get_at(&cache, &1, start + MAX_AGE),
            None,
            "the backstop holds"
        );
        slot.put(cache.ticket(), 1, &"read again");
        assert_eq!(slot.get(&cache, &1), Some("read again"));
    }

    #[test]
    fn a_change_or_a_lost_listener_serves_nothing() {
        let cache = listening();
        let slot: Slot<u8, &str> = Slot::default();
        let before = cache.ticket();
        slot.put(before, 1, &"old");
        cache.changed();
        assert_eq!(slot.get(&cache, &1), None, "a change since the read");
        slot.put(cache.ticket(), 1, &"new");
        assert_eq!(slot.get(&cache, &1), Some("new"));
        cache.set_listening(false);
        assert_eq!(slot.get(&cache, &1), None, "nobody listening");
    }
}
