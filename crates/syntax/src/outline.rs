//! One file through its grammar's tags query.

use crate::languages::GRAMMARS;
use reviewd_domain::ports::syntax::{Outline, Reference, Symbol, SymbolKind};
use std::cell::RefCell;
use std::sync::OnceLock;
use tree_sitter_tags::{TagsConfiguration, TagsContext};

/// Each grammar's compiled query, made once per process on first use (`None`
/// for one that does not compile: its files fall back to windows of lines).
static CONFIGS: [OnceLock<Option<TagsConfiguration>>; 13] = [const { OnceLock::new() }; 13];

thread_local! {
    /// A parser and query cursor per thread.
    static CONTEXT: RefCell<TagsContext> = RefCell::new(TagsContext::new());
}

fn config(grammar: usize) -> Option<&'static TagsConfiguration> {
    CONFIGS
        .get(grammar)?
        .get_or_init(|| {
            let g = &GRAMMARS[grammar];
            TagsConfiguration::new((g.language)(), &(g.tags)(), g.locals)
                .inspect_err(
                    |e| tracing::warn!(language = g.name, error = %e, "syntax.query_unusable"),
                )
                .ok()
        })
        .as_ref()
}

/// What a definition's capture name says it is.
fn kind(name: &str) -> SymbolKind {
    match name {
        "function" | "macro" => SymbolKind::Function,
        "method" | "constructor" => SymbolKind::Method,
        "class" | "struct" | "enum" | "union" | "object" => SymbolKind::Class,
        "interface" | "trait" | "protocol" => SymbolKind::Interface,
        "module" | "namespace" | "package" => SymbolKind::Module,
        "type" | "typedef" => SymbolKind::Type,
        "constant" | "field" | "property" | "variable" => SymbolKind::Constant,
        _ => SymbolKind::Other,
    }
}

/// Byte offsets of each line's start, to turn byte ranges into lines.
struct Lines(Vec<usize>);

impl Lines {
    fn of(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self(starts)
    }

    /// The 1-based line holding byte `at`.
    fn line(&self, at: usize) -> u32 {
        let i = self.0.partition_point(|&start| start <= at);
        u32::try_from(i.max(1)).unwrap_or(u32::MAX)
    }
}

pub(crate) fn outline(grammar: usize, text: &str) -> Option<Outline> {
    let config = config(grammar)?;
    let lines = Lines::of(text);
    let source = text.as_bytes();
    CONTEXT.with(|context| {
        let mut context = context.try_borrow_mut().ok()?;
        let (tags, _) = context.generate_tags(config, source, None).ok()?;
        let mut outline = Outline {
            language: GRAMMARS[grammar].name,
            ..Outline::default()
        };
        for tag in tags.flatten() {
            let Some(name) = text.get(tag.name_range.clone()).map(str::trim) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            if tag.is_definition {
                outline.symbols.push(Symbol {
                    name: name.to_owned(),
                    kind: kind(config.syntax_type_name(tag.syntax_type_id)),
                    start_line: lines.line(tag.range.start),
                    end_line: lines.line(tag.range.end.saturating_sub(1).max(tag.range.start)),
                });
            } else {
                outline.references.push(Reference {
                    name: name.to_owned(),
                    line: u32::try_from(tag.span.start.row + 1).unwrap_or(u32::MAX),
                });
            }
        }
        Some(outline)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_offsets_become_lines() {
        let lines = Lines::of("a\nbc\n\nd");
        assert_eq!(
            [0, 1, 2, 4, 5, 6].map(|at| lines.line(at)),
            [1, 1, 2, 2, 3, 4]
        );
    }

    #[test]
    fn every_grammar_has_a_slot() {
        assert_eq!(CONFIGS.len(), GRAMMARS.len());
    }
}
