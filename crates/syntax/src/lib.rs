//! `TreeSitterAnalyzer`: the domain's [`SyntaxAnalyzer`] over tree-sitter. Each
//! file is parsed with its language's published grammar and tagged with the
//! grammar's tags query (`tree-sitter-tags`): its definitions with the lines
//! their whole node spans, and the names it uses. Parsing runs on tokio's
//! blocking pool, a batch split across the machine's cores.

mod languages;
mod outline;

pub use languages::GRAMMARS;

use async_trait::async_trait;
use reviewd_domain::ports::syntax::{Outline, SourceFile, SyntaxAnalyzer};

/// A file larger than this is not parsed (generated code, bundles): its review
/// falls back to windows of lines.
pub const MAX_PARSED_BYTES: usize = 1024 * 1024;

#[derive(Debug, Clone, Copy, Default)]
pub struct TreeSitterAnalyzer;

impl TreeSitterAnalyzer {
    #[must_use]
    pub fn new() -> Self {
        Self
    }

    /// Outlines one file on the calling thread.
    #[must_use]
    pub fn outline_now(path: &str, text: &str) -> Option<Outline> {
        let grammar = languages::for_path(path)?;
        if text.len() > MAX_PARSED_BYTES {
            return None;
        }
        outline::outline(grammar, text)
    }
}

#[async_trait]
impl SyntaxAnalyzer for TreeSitterAnalyzer {
    fn language_of(&self, path: &str) -> Option<&'static str> {
        languages::for_path(path).map(|i| GRAMMARS[i].name)
    }

    async fn outline(&self, files: Vec<SourceFile>) -> Vec<Option<Outline>> {
        if files.is_empty() {
            return Vec::new();
        }
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let per = files.len().div_ceil(cores).max(1);
        let mut chunks: Vec<Vec<SourceFile>> = Vec::new();
        let mut files = files.into_iter().peekable();
        while files.peek().is_some() {
            chunks.push(files.by_ref().take(per).collect());
        }
        let jobs = chunks.into_iter().map(|chunk| {
            let n = chunk.len();
            async move {
                let parsed = tokio::task::spawn_blocking(move || {
                    chunk
                        .iter()
                        .map(|f| Self::outline_now(&f.path, &f.text))
                        .collect::<Vec<_>>()
                })
                .await;
                parsed.unwrap_or_else(|e| {
                    // A grammar that panicked costs its files' outlines only.
                    tracing::warn!(error = %e, "syntax.outline_failed");
                    vec![None; n]
                })
            }
        });
        futures_util::future::join_all(jobs)
            .await
            .into_iter()
            .flatten()
            .collect()
    }
}
