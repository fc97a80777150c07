//! What a parser sees in a source file: the symbols it defines (with the lines
//! each spans) and the names it uses. The adapter parses with tree-sitter; the
//! domain decides what context that makes.

use async_trait::async_trait;
use std::sync::Arc;

/// A file to outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub path: String,
    pub text: Arc<str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SymbolKind {
    Function,
    Method,
    Class,
    Interface,
    Module,
    Type,
    Constant,
    Other,
}

impl SymbolKind {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Class => "class",
            SymbolKind::Interface => "interface",
            SymbolKind::Module => "module",
            SymbolKind::Type => "type",
            SymbolKind::Constant => "constant",
            SymbolKind::Other => "symbol",
        }
    }

    /// Functions and methods: what a hunk most often sits in.
    #[must_use]
    pub fn is_callable(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method)
    }
}

/// A definition: its name and the lines of its whole node (1-based, inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    pub start_line: u32,
    pub end_line: u32,
}

impl Symbol {
    #[must_use]
    pub fn lines(&self) -> u32 {
        self.end_line.saturating_sub(self.start_line) + 1
    }

    #[must_use]
    pub fn contains(&self, line: u32) -> bool {
        (self.start_line..=self.end_line).contains(&line)
    }
}

/// A use of a name (a call, a type named) on a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub name: String,
    pub line: u32,
}

/// A parsed file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outline {
    /// The grammar that parsed it (`rust`, `python`...).
    pub language: &'static str,
    pub symbols: Vec<Symbol>,
    pub references: Vec<Reference>,
}

#[async_trait]
pub trait SyntaxAnalyzer: Send + Sync {
    /// The language a path is parsed as, `None` for a file no grammar reads.
    fn language_of(&self, path: &str) -> Option<&'static str>;

    /// Outlines `files`, in order: `None` for a file no grammar reads. Parsing is
    /// CPU work: the adapter does it off the async workers.
    async fn outline(&self, files: Vec<SourceFile>) -> Vec<Option<Outline>>;
}
