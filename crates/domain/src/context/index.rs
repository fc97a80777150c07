//! The symbol index of a repository at one commit: where each name is defined
//! and where it is used, from the parser's outlines (tree-sitter tags queries),
//! plus the files' texts so a definition or a caller can be quoted.

use crate::ports::syntax::{Outline, Symbol};
use std::collections::HashMap;
use std::sync::Arc;

/// One indexed file.
#[derive(Debug, Clone)]
pub struct IndexedFile {
    pub path: String,
    pub text: Arc<str>,
    pub outline: Option<Arc<Outline>>,
}

impl IndexedFile {
    /// The smallest symbol whose lines hold `line`, callables first: the function
    /// a line sits in before the class around it.
    #[must_use]
    pub fn enclosing(&self, line: u32) -> Option<&Symbol> {
        enclosing(self.outline.as_deref()?, line)
    }
}

/// The smallest callable holding `line`, else the smallest symbol of any kind.
#[must_use]
pub fn enclosing(outline: &Outline, line: u32) -> Option<&Symbol> {
    let around = || outline.symbols.iter().filter(move |s| s.contains(line));
    around()
        .filter(|s| s.kind.is_callable())
        .min_by_key(|s| s.lines())
        .or_else(|| around().min_by_key(|s| s.lines()))
}

/// A file and a line of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site {
    pub file: usize,
    pub line: u32,
}

#[derive(Debug, Default)]
pub struct SymbolIndex {
    /// Every file of the commit with its blob id (indexed or not: guidance,
    /// docs), so a later round on the same head finds them in the cache.
    tree: Vec<(String, String)>,
    files: Vec<IndexedFile>,
    by_path: HashMap<String, usize>,
    /// Name to (file, symbol number in its outline).
    definitions: HashMap<String, Vec<(usize, usize)>>,
    /// Name to the sites the parser saw it used.
    references: HashMap<String, Vec<Site>>,
    lines: usize,
}

impl SymbolIndex {
    /// Adds one file (used by `build`, and by tests with outlines of their own).
    pub fn add(&mut self, file: IndexedFile) {
        let n = self.files.len();
        self.lines += file.text.lines().count();
        if let Some(outline) = &file.outline {
            for (i, symbol) in outline.symbols.iter().enumerate() {
                self.definitions
                    .entry(symbol.name.clone())
                    .or_default()
                    .push((n, i));
            }
            for reference in &outline.references {
                self.references
                    .entry(reference.name.clone())
                    .or_default()
                    .push(Site {
                        file: n,
                        line: reference.line,
                    });
            }
        }
        self.by_path.insert(file.path.clone(), n);
        self.files.push(file);
    }

    /// Records the commit's whole tree, `(path, blob id)` sorted by path.
    #[must_use]
    pub fn with_tree(mut self, mut tree: Vec<(String, String)>) -> Self {
        tree.sort();
        self.tree = tree;
        self
    }

    /// The commit's whole tree, `(path, blob id)` by path.
    #[must_use]
    pub fn tree(&self) -> &[(String, String)] {
        &self.tree
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.files.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Lines of text indexed.
    #[must_use]
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// Files a grammar parsed.
    #[must_use]
    pub fn parsed(&self) -> usize {
        self.files.iter().filter(|f| f.outline.is_some()).count()
    }

    #[must_use]
    pub fn file(&self, path: &str) -> Option<&IndexedFile> {
        self.by_path.get(path).map(|&i| &self.files[i])
    }

    #[must_use]
    pub fn file_at(&self, i: usize) -> &IndexedFile {
        &self.files[i]
    }

    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|f| f.path.as_str())
    }

    /// Where `name` is defined.
    pub fn definitions<'a>(
        &'a self,
        name: &str,
    ) -> impl Iterator<Item = (&'a IndexedFile, &'a Symbol)> + 'a {
        self.definitions
            .get(name)
            .into_iter()
            .flatten()
            .filter_map(|&(f, s)| {
                let file = &self.files[f];
                Some((file, file.outline.as_ref()?.symbols.get(s)?))
            })
    }

    /// How many definitions `name` has.
    #[must_use]
    pub fn definition_count(&self, name: &str) -> usize {
        self.definitions.get(name).map_or(0, Vec::len)
    }

    /// Where `name` is used: the parser's references, and the lines of every
    /// file that name it as a whole word (a use the grammar's tags query does not
    /// capture: a function passed as a value, a type in a signature), without the
    /// lines that define it. At most `most`, in path and line order.
    #[must_use]
    pub fn uses(&self, name: &str, most: usize) -> Vec<Site> {
        let mut sites: Vec<Site> = self.references.get(name).cloned().unwrap_or_default();
        for (i, file) in self.files.iter().enumerate() {
            if file.text.contains(name) {
                sites.extend(word_lines(&file.text, name).map(|line| Site { file: i, line }));
            }
        }
        let defining: Vec<Site> = self
            .definitions
            .get(name)
            .into_iter()
            .flatten()
            .filter_map(|&(f, s)| {
                let symbol = self.files[f].outline.as_ref()?.symbols.get(s)?;
                Some(Site {
                    file: f,
                    line: symbol.start_line,
                })
            })
            .collect();
        sites.retain(|s| !defining.contains(s));
        sites.sort_by(|a, b| {
            (self.files[a.file].path.as_str(), a.line)
                .cmp(&(self.files[b.file].path.as_str(), b.line))
        });
        sites.dedup();
        sites.truncate(most);
        sites
    }
}

/// The 1-based lines of `text` where `word` stands as a whole identifier.
pub fn word_lines<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = u32> + 'a {
    let mut line = 1u32;
    let mut scanned = 0usize;
    let mut last = 0u32;
    text.match_indices(word).filter_map(move |(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if before.is_some_and(is_ident) || after.is_some_and(is_ident) {
            return None;
        }
        line += u32::try_from(text[scanned..at].matches('\n').count()).unwrap_or(0);
        scanned = at;
        (line != last).then(|| {
            last = line;
            line
        })
    })
}

/// A character of an identifier in the languages reviewed.
#[must_use]
pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::syntax::{Reference, SymbolKind};

    fn symbol(name: &str, kind: SymbolKind, start: u32, end: u32) -> Symbol {
        Symbol {
            name: name.into(),
            kind,
            start_line: start,
            end_line: end,
        }
    }

    #[test]
    fn definitions_uses_and_the_enclosing_symbol() {
        let mut index = SymbolIndex::default();
        index.add(IndexedFile {
            path: "lib.py".into(),
            text: Arc::from("class Store:\n    def find(self, id):\n        return None\n"),
            outline: Some(Arc::new(Outline {
                language: "python",
                symbols: vec![
                    symbol("Store", SymbolKind::Class, 1, 3),
                    symbol("find", SymbolKind::Method, 2, 3),
                ],
                references: vec![],
            })),
        });
        index.add(IndexedFile {
            path: "app.py".into(),
            text: Arc::from("def show(store):\n    user = store.find(1)\n    cb = finder\n    return user.name\n"),
            outline: Some(Arc::new(Outline {
                language: "python",
                symbols: vec![symbol("show", SymbolKind::Function, 1, 4)],
                references: vec![Reference {
                    name: "find".into(),
                    line: 2,
                }],
            })),
        });
        let found: Vec<_> = index
            .definitions("find")
            .map(|(f, s)| (f.path.as_str(), s.start_line))
            .collect();
        assert_eq!(found, vec![("lib.py", 2)]);
        let uses: Vec<_> = index
            .uses("find", 10)
            .into_iter()
            .map(|s| (index.file_at(s.file).path.as_str(), s.line))
            .collect();
        assert_eq!(
            uses,
            vec![("app.py", 2)],
            "the definition's own line and `finder` are not uses"
        );
        let lib = index.file("lib.py").unwrap();
        assert_eq!(
            lib.enclosing(3).map(|s| s.name.as_str()),
            Some("find"),
            "the method before its class"
        );
        assert_eq!(lib.enclosing(1).map(|s| s.name.as_str()), Some("Store"));
        assert_eq!(index.lines(), 7);
    }

    #[test]
    fn whole_words_only_with_their_lines() {
        let text = "a = foo(1)\nfoofoo()\n_foo = 2\nx.foo; foo\n";
        assert_eq!(word_lines(text, "foo").collect::<Vec<_>>(), vec![1, 4]);
    }
}
