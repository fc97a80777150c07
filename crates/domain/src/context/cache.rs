//! What a process keeps between files and rounds: file contents by blob id (a
//! file unchanged since the last round is not fetched again), outlines by blob id
//! (nor parsed again), and the symbol index of the last commits.
//!
//! Bounded: contents by bytes, outlines and indexes by count; the least recently
//! used go first.

use super::index::SymbolIndex;
use crate::ports::syntax::Outline;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A file's text, or `None` for one that is not UTF-8 (binary): remembered too,
/// so it is not fetched again to find that out.
pub type Text = Option<Arc<str>>;

/// The caches one server or runner process shares between its reviews.
#[derive(Debug)]
pub struct ContextCaches {
    blobs: Mutex<Lru<Text>>,
    outlines: Mutex<Lru<Option<Arc<Outline>>>>,
    indexes: Mutex<Lru<Arc<SymbolIndex>>>,
}

/// Cache sizes.
#[derive(Debug, Clone, Copy)]
pub struct CacheLimits {
    pub blob_bytes: usize,
    pub outlines: usize,
    pub indexes: usize,
}

impl Default for CacheLimits {
    fn default() -> Self {
        Self {
            blob_bytes: 64 * 1024 * 1024,
            outlines: 50_000,
            indexes: 4,
        }
    }
}

impl Default for ContextCaches {
    fn default() -> Self {
        Self::new(CacheLimits::default())
    }
}

impl ContextCaches {
    #[must_use]
    pub fn new(limits: CacheLimits) -> Self {
        Self {
            blobs: Mutex::new(Lru::new(limits.blob_bytes)),
            outlines: Mutex::new(Lru::new(limits.outlines)),
            indexes: Mutex::new(Lru::new(limits.indexes)),
        }
    }

    pub(crate) fn blob(&self, id: &str) -> Option<Text> {
        self.blobs.lock().ok()?.get(id)
    }

    pub(crate) fn put_blob(&self, id: &str, text: Text) {
        let weight = text.as_ref().map_or(64, |t| t.len().max(64));
        if let Ok(mut blobs) = self.blobs.lock() {
            blobs.put(id.to_owned(), text, weight);
        }
    }

    /// An outline, keyed by blob and language (the same bytes under another
    /// extension parse differently).
    pub(crate) fn outline(&self, key: &str) -> Option<Option<Arc<Outline>>> {
        self.outlines.lock().ok()?.get(key)
    }

    pub(crate) fn put_outline(&self, key: String, outline: Option<Arc<Outline>>) {
        if let Ok(mut outlines) = self.outlines.lock() {
            outlines.put(key, outline, 1);
        }
    }

    pub(crate) fn index(&self, key: &str) -> Option<Arc<SymbolIndex>> {
        self.indexes.lock().ok()?.get(key)
    }

    pub(crate) fn put_index(&self, key: String, index: Arc<SymbolIndex>) {
        if let Ok(mut indexes) = self.indexes.lock() {
            indexes.put(key, index, 1);
        }
    }

    /// Bytes of file contents held now.
    #[must_use]
    pub fn blob_bytes(&self) -> usize {
        self.blobs.lock().map_or(0, |b| b.weight)
    }
}

/// A least-recently-used map bounded by the sum of its entries' weights.
#[derive(Debug)]
struct Lru<V> {
    entries: HashMap<String, (V, usize, u64)>,
    weight: usize,
    capacity: usize,
    tick: u64,
}

impl<V: Clone> Lru<V> {
    fn new(capacity: usize) -> Self {
        Self {
            entries: HashMap::new(),
            weight: 0,
            capacity,
            tick: 0,
        }
    }

    fn get(&mut self, key: &str) -> Option<V> {
        self.tick += 1;
        let tick = self.tick;
        self.entries.get_mut(key).map(|(v, _, used)| {
            *used = tick;
            v.clone()
        })
    }

    fn put(&mut self, key: String, value: V, weight: usize) {
        if weight > self.capacity {
            return;
        }
        self.tick += 1;
        if let Some((_, old, _)) = self.entries.insert(key, (value, weight, self.tick)) {
            self.weight -= old;
        }
        self.weight += weight;
        if self.weight > self.capacity {
            // Evict down to three quarters at once, so a full cache does not sort
            // its entries at every insert.
            let target = self.capacity / 4 * 3;
            let mut by_age: Vec<(u64, String, usize)> = self
                .entries
                .iter()
                .map(|(k, (_, w, used))| (*used, k.clone(), *w))
                .collect();
            by_age.sort_unstable();
            for (_, key, w) in by_age {
                if self.weight <= target {
                    break;
                }
                self.entries.remove(&key);
                self.weight -= w;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_go_first_and_the_bound_holds() {
        let caches = ContextCaches::new(CacheLimits {
            blob_bytes: 1_000,
            outlines: 10,
            indexes: 2,
        });
        for name in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] {
            caches.put_blob(name, Some(Arc::from("x".repeat(100))));
        }
        assert!(
            caches.blob("a").is_some(),
            "a is used again: b is the oldest now"
        );
        caches.put_blob("k", Some(Arc::from("y".repeat(100))));
        assert!(caches.blob_bytes() <= 1_000);
        for gone in ["b", "c", "d", "e"] {
            assert!(caches.blob(gone).is_none(), "{gone}: the oldest go first");
        }
        for kept in ["a", "f", "k"] {
            assert!(caches.blob(kept).is_some(), "{kept} stays");
        }
        caches.put_blob("huge", Some(Arc::from("h".repeat(2_000))));
        assert!(
            caches.blob("huge").is_none(),
            "larger than the cache: not kept"
        );
        caches.put_blob("bin", None);
        assert_eq!(
            caches.blob("bin"),
            Some(None),
            "a binary blob is remembered as such"
        );
    }
}
