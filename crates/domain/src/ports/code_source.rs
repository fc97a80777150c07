//! A repository's contents at a commit, read where the code is: through the
//! platform's REST API on the server, from the runner's clone on a runner, from a
//! case's trees in `reviewd eval`. The review's context (the code around a change,
//! the definitions it uses, its callers, the team's guidance) is read through this
//! port only, so every reader gets the same context.

use super::platform_error::PlatformError;
use async_trait::async_trait;

/// One file of a commit's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry {
    /// From the repository's root, `/`-separated.
    pub path: String,
    /// The content's id (git's blob id on both platforms and in a clone): two
    /// entries with the same id hold the same bytes, so contents are cached by it.
    pub blob_id: String,
    /// In bytes, when the source says.
    pub size: Option<u64>,
}

/// Every file of a commit (submodules and symlinks left out).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepoTree {
    pub entries: Vec<TreeEntry>,
    /// The source listed only part of the tree (GitHub cuts a recursive tree at
    /// 100,000 entries; a call budget can end a paged listing).
    pub truncated: bool,
}

/// How much of an archive is unpacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveLimits {
    /// Unpacked bytes kept in all; reading stops there (`Archive::truncated`).
    pub max_total_bytes: u64,
    /// A larger file is skipped (generated code, data), not counted.
    pub max_file_bytes: u64,
    /// Compressed bytes downloaded at most.
    pub max_download_bytes: u64,
}

/// A file unpacked from an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedFile {
    pub path: String,
    /// Git's blob id of the bytes (computed by the adapter: archives carry none),
    /// so contents read from an archive share the cache of contents read by id.
    pub blob_id: String,
    pub bytes: Vec<u8>,
}

/// A commit's files from one download.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Archive {
    pub files: Vec<ArchivedFile>,
    /// Bytes downloaded (compressed).
    pub downloaded_bytes: u64,
    /// A limit stopped the reading: some files are missing.
    pub truncated: bool,
}

/// Reads one repository. Every method is one call to the source (a paged tree may
/// take several, each counted by the adapter's caller as one).
#[async_trait]
pub trait CodeSource: Send + Sync {
    /// Where the code is read from, for the review page (`hostA API`, `checkout`).
    fn describe(&self) -> &'static str;

    /// The files of `commit`.
    ///
    /// # Errors
    /// `NotFound` for an unknown commit; `Unsupported` where the source cannot
    /// list a tree; `Unavailable`/`RateLimited` as usual.
    async fn tree(&self, commit: &str) -> Result<RepoTree, PlatformError>;

    /// Whether [`CodeSource::tree`] is one call (GitHub's recursive tree, a clone)
    /// rather than many (GitLab's tree is paged 100 entries at a time): only then
    /// is a file looked up by its blob id rather than read by its path.
    fn tree_is_one_call(&self) -> bool {
        true
    }

    /// The bytes of one blob.
    ///
    /// # Errors
    /// `NotFound` for an unknown blob; `Unavailable`/`RateLimited` as usual.
    async fn blob(&self, blob_id: &str) -> Result<Vec<u8>, PlatformError>;

    /// The file at `path` in `commit` (`None` when there is none).
    ///
    /// # Errors
    /// `Unavailable`/`RateLimited` as usual.
    async fn file(&self, commit: &str, path: &str) -> Result<Option<Vec<u8>>, PlatformError>;

    /// Every file of `commit` from one download (a `tar.gz` archive on the
    /// platforms), within `limits`.
    ///
    /// # Errors
    /// `NotFound` for an unknown commit; `Unsupported` where the source has no
    /// archive; `InvalidResponse` for an archive that cannot be read.
    async fn archive(&self, commit: &str, limits: ArchiveLimits) -> Result<Archive, PlatformError>;
}
