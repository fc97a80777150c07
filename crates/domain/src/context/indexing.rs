//! Building a [`SymbolIndex`]: the files outlined by the analyzer in batches, with the
//! outlines of blobs already seen taken from the [`ContextCaches`]. Apart from `index`,
//! so that the index (which the caches keep) does not depend on the caches.

use super::cache::ContextCaches;
use super::index::{IndexedFile, SymbolIndex};
use crate::ports::syntax::{Outline, SourceFile, SyntaxAnalyzer};
use std::sync::Arc;

/// Files outlined per call to the analyzer.
const BATCH: usize = 256;

impl SymbolIndex {
    /// Outlines `files` (`(path, blob id, text)`), reusing outlines cached by blob
    /// id, and indexes their symbols.
    pub async fn build(
        files: Vec<(String, String, Arc<str>)>,
        analyzer: &dyn SyntaxAnalyzer,
        caches: &ContextCaches,
    ) -> Self {
        let mut outlines: Vec<Option<Arc<Outline>>> = vec![None; files.len()];
        let mut missing: Vec<usize> = Vec::new();
        for (i, (path, blob, _)) in files.iter().enumerate() {
            let Some(language) = analyzer.language_of(path) else {
                continue;
            };
            match caches.outline(&outline_key(blob, language)) {
                Some(cached) => outlines[i] = cached,
                None => missing.push(i),
            }
        }
        for batch in missing.chunks(BATCH) {
            let sources = batch
                .iter()
                .map(|&i| SourceFile {
                    path: files[i].0.clone(),
                    text: files[i].2.clone(),
                })
                .collect();
            let parsed = analyzer.outline(sources).await;
            for (&i, outline) in batch.iter().zip(parsed) {
                let outline = outline.map(Arc::new);
                if let Some(language) = analyzer.language_of(&files[i].0) {
                    caches.put_outline(outline_key(&files[i].1, language), outline.clone());
                }
                outlines[i] = outline;
            }
        }
        let mut index = SymbolIndex::default();
        for ((path, _, text), outline) in files.into_iter().zip(outlines) {
            index.add(IndexedFile {
                path,
                text,
                outline,
            });
        }
        index
    }
}

fn outline_key(blob: &str, language: &str) -> String {
    format!("{blob}:{language}")
}
