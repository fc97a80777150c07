//! One MR's reads of its repository: each call counted and bounded (calls and
//! bytes per MR), contents taken from the process's cache by blob id first, and a
//! failed read costing only the context it would have given (the review goes on).

use super::cache::{ContextCaches, Text};
use super::settings::ContextSettings;
use crate::ports::PlatformError;
use crate::ports::code_source::{ArchiveLimits, CodeSource, RepoTree};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What the reads of one round cost, for the review page and the benchmarks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchStats {
    /// Where the code was read (`hostA API`, `checkout`...).
    pub source: &'static str,
    /// Calls made to the source.
    pub calls: u32,
    /// Bytes received from it.
    pub bytes: u64,
    /// Contents found in the cache instead.
    pub cache_hits: u32,
    /// A limit (calls, bytes, archive size) left some context unread.
    pub limited: bool,
    /// Reads that failed (the first few), the review going on without them.
    pub errors: Vec<String>,
}

/// The files of a commit read from one archive: path to blob id and text.
type Unpacked = HashMap<String, (String, Text)>;

#[derive(Default)]
struct State {
    stats: FetchStats,
    trees: HashMap<String, Option<Arc<RepoTree>>>,
    archives: HashMap<String, Option<Archived>>,
}

/// A commit's files read from an archive, or restored from the cache.
#[derive(Clone)]
struct Archived {
    files: Arc<Unpacked>,
    /// Every file of the commit is there: a path missing is a file missing.
    /// A restored or truncated archive is not complete: a path missing is read
    /// otherwise.
    complete: bool,
}

/// Reads one repository for one round.
pub struct CodeReader {
    source: Arc<dyn CodeSource>,
    caches: Arc<ContextCaches>,
    /// Names the repository in cache keys that are not blob ids.
    scope: String,
    max_calls: u32,
    max_bytes: u64,
    max_file_bytes: u64,
    state: Mutex<State>,
}

impl std::fmt::Debug for CodeReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeReader")
            .field("source", &self.source.describe())
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

const MAX_ERRORS: usize = 5;

impl CodeReader {
    /// `scope` names the repository (a project id) for the cache.
    #[must_use]
    pub fn new(
        source: Arc<dyn CodeSource>,
        caches: Arc<ContextCaches>,
        scope: impl Into<String>,
        settings: &ContextSettings,
    ) -> Self {
        let stats = FetchStats {
            source: source.describe(),
            ..FetchStats::default()
        };
        Self {
            source,
            caches,
            scope: scope.into(),
            max_calls: settings.max_calls,
            max_bytes: settings.max_bytes,
            max_file_bytes: settings.max_file_bytes,
            state: Mutex::new(State {
                stats,
                ..State::default()
            }),
        }
    }

    #[must_use]
    pub fn stats(&self) -> FetchStats {
        self.state
            .lock()
            .map(|s| s.stats.clone())
            .unwrap_or_default()
    }

    #[must_use]
    pub fn caches(&self) -> &ContextCaches {
        &self.caches
    }

    #[must_use]
    pub fn scope(&self) -> &str {
        &self.scope
    }

    /// Takes one call from the budget; `false` (and the round marked limited)
    /// when none is left.
    fn spend_call(&self) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        if state.stats.calls >= self.max_calls || state.stats.bytes >= self.max_bytes {
            state.stats.limited = true;
            return false;
        }
        state.stats.calls += 1;
        true
    }

    fn received(&self, bytes: u64) {
        if let Ok(mut state) = self.state.lock() {
            state.stats.bytes += bytes;
        }
    }

    fn hit(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.stats.cache_hits += 1;
        }
    }

    fn failed(&self, what: &str, error: &PlatformError) {
        tracing::info!(source = self.source.describe(), what, error = %error, "context.read_failed");
        if let Ok(mut state) = self.state.lock()
            && state.stats.errors.len() < MAX_ERRORS
        {
            state.stats.errors.push(format!("{what}: {error}"));
        }
    }

    fn mark_limited(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.stats.limited = true;
        }
    }

    /// The bytes left in the budget.
    fn bytes_left(&self) -> u64 {
        self.state
            .lock()
            .map_or(0, |s| self.max_bytes.saturating_sub(s.stats.bytes))
    }

    /// The tree of `commit`, read once per round (`None` when it cannot be).
    pub async fn tree(&self, commit: &str) -> Option<Arc<RepoTree>> {
        if let Some(known) = self.state.lock().ok()?.trees.get(commit) {
            return known.clone();
        }
        let tree = if self.spend_call() {
            match self.source.tree(commit).await {
                Ok(tree) => {
                    // A tree's size on the wire is not known here: about 100
                    // bytes an entry.
                    self.received(tree.entries.len() as u64 * 100);
                    Some(Arc::new(tree))
                }
                Err(e) => {
                    self.failed(&format!("tree of {commit}"), &e);
                    None
                }
            }
        } else {
            None
        };
        if let Ok(mut state) = self.state.lock() {
            state.trees.insert(commit.to_owned(), tree.clone());
        }
        tree
    }

    /// Every file of `commit` from one archive, read once per round and kept
    /// by blob id in the cache. `None` when the source has no archive or it
    /// failed.
    pub async fn archive(&self, commit: &str) -> Option<Arc<Unpacked>> {
        if let Some(known) = self.state.lock().ok()?.archives.get(commit) {
            return known.clone().map(|a| a.files);
        }
        let unpacked = if self.spend_call() {
            let left = self.bytes_left();
            let limits = ArchiveLimits {
                max_total_bytes: left.saturating_mul(4),
                max_file_bytes: self.max_file_bytes,
                max_download_bytes: left,
            };
            match self.source.archive(commit, limits).await {
                Ok(archive) => {
                    self.received(archive.downloaded_bytes);
                    if archive.truncated {
                        self.mark_limited();
                    }
                    let mut files = HashMap::with_capacity(archive.files.len());
                    for file in archive.files {
                        let text = to_text(file.bytes);
                        self.caches.put_blob(&file.blob_id, text.clone());
                        files.insert(file.path, (file.blob_id, text));
                    }
                    Some(Archived {
                        files: Arc::new(files),
                        complete: !archive.truncated,
                    })
                }
                Err(PlatformError::Unsupported(_)) => None,
                Err(e) => {
                    self.failed(&format!("archive of {commit}"), &e);
                    None
                }
            }
        } else {
            None
        };
        if let Ok(mut state) = self.state.lock() {
            state.archives.insert(commit.to_owned(), unpacked.clone());
        }
        unpacked.map(|a| a.files)
    }

    /// The files of `commit` a cached index names (`(path, blob id)`), their texts
    /// taken from the cache: a later round on the same head reads them without
    /// downloading the archive again. What the cache no longer holds is read
    /// otherwise, when asked for.
    pub fn restore(&self, commit: &str, entries: &[(String, String)]) {
        let mut files = HashMap::with_capacity(entries.len());
        for (path, blob) in entries {
            if let Some(text) = self.caches.blob(blob) {
                files.insert(path.clone(), (blob.clone(), text));
            }
        }
        if let Ok(mut state) = self.state.lock() {
            state.stats.cache_hits += u32::try_from(files.len()).unwrap_or(u32::MAX);
            state.archives.insert(
                commit.to_owned(),
                Some(Archived {
                    files: Arc::new(files),
                    complete: false,
                }),
            );
        }
    }

    /// The archive of `commit` if this round already read (or restored) it.
    fn archived(&self, commit: &str) -> Option<Archived> {
        self.state
            .lock()
            .ok()?
            .archives
            .get(commit)
            .cloned()
            .flatten()
    }

    /// The text of `path` at `commit`: from this round's archive, else by blob id
    /// (cache first) where the tree is one call, else read by path (cached by
    /// commit and path). `None` for a missing, binary, oversized or unreadable
    /// file.
    pub async fn file(&self, commit: &str, path: &str) -> Option<Arc<str>> {
        if let Some(archive) = self.archived(commit) {
            match archive.files.get(path) {
                Some((_, text)) => return text.clone(),
                None if archive.complete => return None,
                None => {}
            }
        }
        if self.source.tree_is_one_call() {
            let tree = self.tree(commit).await?;
            let entry = tree.entries.iter().find(|e| e.path == path)?;
            if entry.size.is_some_and(|s| s > self.max_file_bytes) {
                return None;
            }
            return self.blob(&entry.blob_id).await;
        }
        let key = format!("{}@{commit}:{path}", self.scope);
        if let Some(text) = self.caches.blob(&key) {
            self.hit();
            return text;
        }
        if !self.spend_call() {
            return None;
        }
        match self.source.file(commit, path).await {
            Ok(Some(bytes)) => {
                self.received(bytes.len() as u64);
                let text = (bytes.len() as u64 <= self.max_file_bytes)
                    .then(|| to_text(bytes))
                    .flatten();
                self.caches.put_blob(&key, text.clone());
                text
            }
            Ok(None) => None,
            Err(e) => {
                self.failed(&format!("{path} at {commit}"), &e);
                None
            }
        }
    }

    /// One blob's text, from the cache when it is there.
    pub async fn blob(&self, blob_id: &str) -> Option<Arc<str>> {
        if let Some(text) = self.caches.blob(blob_id) {
            self.hit();
            return text;
        }
        if !self.spend_call() {
            return None;
        }
        match self.source.blob(blob_id).await {
            Ok(bytes) => {
                self.received(bytes.len() as u64);
                let text = (bytes.len() as u64 <= self.max_file_bytes)
                    .then(|| to_text(bytes))
                    .flatten();
                self.caches.put_blob(blob_id, text.clone());
                text
            }
            Err(e) => {
                self.failed(&format!("blob {blob_id}"), &e);
                None
            }
        }
    }
}

/// UTF-8 text, else `None` (a binary file).
fn to_text(bytes: Vec<u8>) -> Text {
    String::from_utf8(bytes).ok().map(Arc::from)
}
