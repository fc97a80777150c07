//! The code ports in memory: a repository's commits as maps of files
//! ([`MemoryCode`], with every call counted), and a parser of a toy language
//! ([`ToySyntax`]) whose rules fit in a sentence, for domain tests that need
//! outlines without a grammar.

use async_trait::async_trait;
use reviewd_domain::ports::syntax::{Outline, Reference, SourceFile, Symbol, SymbolKind};
use reviewd_domain::ports::{
    Archive, ArchiveLimits, ArchivedFile, CodeSource, PlatformError, RepoTree, SyntaxAnalyzer,
    TreeEntry,
};
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

/// Commits by name, each a map of path to text.
#[derive(Debug, Default)]
pub struct MemoryCode {
    commits: HashMap<String, BTreeMap<String, String>>,
    calls: Mutex<Vec<&'static str>>,
    /// Answer the archive call with this error (an unavailable platform).
    archive_error: Option<PlatformError>,
}

impl MemoryCode {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// `commit` holds `files` (path, text).
    #[must_use]
    pub fn commit(mut self, commit: &str, files: &[(&str, &str)]) -> Self {
        self.commits.insert(
            commit.to_owned(),
            files
                .iter()
                .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
                .collect(),
        );
        self
    }

    /// The archive call fails with `error`.
    #[must_use]
    pub fn archive_fails(mut self, error: PlatformError) -> Self {
        self.archive_error = Some(error);
        self
    }

    /// The calls made so far: `tree`, `blob`, `file`, `archive`.
    #[must_use]
    pub fn calls(&self) -> Vec<&'static str> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }

    fn call(&self, name: &'static str) {
        if let Ok(mut calls) = self.calls.lock() {
            calls.push(name);
        }
    }

    fn files(&self, commit: &str) -> Result<&BTreeMap<String, String>, PlatformError> {
        self.commits
            .get(commit)
            .ok_or_else(|| PlatformError::NotFound(format!("commit {commit}")))
    }
}

/// A stand-in blob id: the text's length and its first and last bytes would
/// collide, so the whole text is the id's input.
fn blob_id(text: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    format!("{:016x}", h.finish())
}

#[async_trait]
impl CodeSource for MemoryCode {
    fn describe(&self) -> &'static str {
        "memory"
    }

    async fn tree(&self, commit: &str) -> Result<RepoTree, PlatformError> {
        self.call("tree");
        Ok(RepoTree {
            entries: self
                .files(commit)?
                .iter()
                .map(|(path, text)| TreeEntry {
                    path: path.clone(),
                    blob_id: blob_id(text),
                    size: Some(text.len() as u64),
                })
                .collect(),
            truncated: false,
        })
    }

    async fn blob(&self, id: &str) -> Result<Vec<u8>, PlatformError> {
        self.call("blob");
        self.commits
            .values()
            .flat_map(BTreeMap::values)
            .find(|t| blob_id(t) == id)
            .map(|t| t.clone().into_bytes())
            .ok_or_else(|| PlatformError::NotFound(format!("blob {id}")))
    }

    async fn file(&self, commit: &str, path: &str) -> Result<Option<Vec<u8>>, PlatformError> {
        self.call("file");
        Ok(self
            .files(commit)?
            .get(path)
            .map(|t| t.clone().into_bytes()))
    }

    async fn archive(&self, commit: &str, limits: ArchiveLimits) -> Result<Archive, PlatformError> {
        self.call("archive");
        if let Some(error) = &self.archive_error {
            return Err(error.clone());
        }
        let files: Vec<ArchivedFile> = self
            .files(commit)?
            .iter()
            .filter(|(_, t)| t.len() as u64 <= limits.max_file_bytes)
            .map(|(path, text)| ArchivedFile {
                path: path.clone(),
                blob_id: blob_id(text),
                bytes: text.clone().into_bytes(),
            })
            .collect();
        Ok(Archive {
            downloaded_bytes: files.iter().map(|f| f.bytes.len() as u64).sum(),
            files,
            truncated: false,
        })
    }
}

/// A parser of a toy language, for files ending in `.toy`: a line `fn NAME(` at
/// the start of a line begins a function that ends at the next line that is
/// exactly `}`, and `NAME(` anywhere else is a call of `NAME`.
#[derive(Debug, Default)]
pub struct ToySyntax {
    parsed: Mutex<usize>,
}

impl ToySyntax {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Files outlined so far (to see what the caches saved).
    #[must_use]
    pub fn parsed(&self) -> usize {
        self.parsed.lock().map_or(0, |n| *n)
    }

    fn outline_one(text: &str) -> Outline {
        let mut outline = Outline {
            language: "toy",
            ..Outline::default()
        };
        let mut open: Option<(String, u32)> = None;
        for (i, line) in text.lines().enumerate() {
            let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
            if let Some(rest) = line.strip_prefix("fn ")
                && let Some((name, _)) = rest.split_once('(')
            {
                open = Some((name.trim().to_owned(), n));
                continue;
            }
            if line == "}"
                && let Some((name, start)) = open.take()
            {
                outline.symbols.push(Symbol {
                    name,
                    kind: SymbolKind::Function,
                    start_line: start,
                    end_line: n,
                });
                continue;
            }
            for (at, _) in line.match_indices('(') {
                let name: String = line[..at]
                    .chars()
                    .rev()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                if !name.is_empty() {
                    outline.references.push(Reference { name, line: n });
                }
            }
        }
        outline
    }
}

#[async_trait]
impl SyntaxAnalyzer for ToySyntax {
    fn language_of(&self, path: &str) -> Option<&'static str> {
        path.ends_with(".toy").then_some("toy")
    }

    async fn outline(&self, files: Vec<SourceFile>) -> Vec<Option<Outline>> {
        files
            .iter()
            .map(|f| {
                self.language_of(&f.path).map(|_| {
                    if let Ok(mut n) = self.parsed.lock() {
                        *n += 1;
                    }
                    Self::outline_one(&f.text)
                })
            })
            .collect()
    }
}
