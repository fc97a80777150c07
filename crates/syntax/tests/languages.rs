//! Every language reviewd outlines, on a small file of its own: the grammar's
//! query compiles, a method is found with the lines of its whole body, and a
//! call inside it is seen as a use of the callee.

use reviewd_domain::ports::syntax::{SourceFile, SymbolKind, SyntaxAnalyzer};
use reviewd_syntax::{GRAMMARS, TreeSitterAnalyzer};
use std::sync::Arc;

/// `(path, source, the symbol whose lines are checked, its first and last
/// line, a name called inside it)`.
const CASES: &[(&str, &str, &str, u32, u32, &str)] = &[
    (
        "src/store.rs",
        "pub struct Store;\n\nimpl Store {\n    pub fn find(&self, id: u32) -> Option<u32> {\n        lookup(id)\n    }\n}\n",
        "find",
        4,
        6,
        "lookup",
    ),
    (
        "app/store.py",
        "class Store:\n    def find(self, id):\n        row = lookup(id)\n        return row\n",
        "find",
        2,
        4,
        "lookup",
    ),
    (
        "web/store.js",
        "class Store {\n  find(id) {\n    return lookup(id);\n  }\n}\n",
        "find",
        2,
        4,
        "lookup",
    ),
    (
        "web/store.ts",
        "export class Store {\n  find(id: number): number | undefined {\n    return lookup(id);\n  }\n}\ninterface Row { id: number }\n",
        "find",
        2,
        4,
        "lookup",
    ),
    (
        "web/view.tsx",
        "export function View(props: { id: number }) {\n  const row = lookup(props.id);\n  return <div>{row}</div>;\n}\n",
        "View",
        1,
        4,
        "lookup",
    ),
    (
        "pkg/store.go",
        "package store\n\nfunc (s *Store) Find(id int) (*Row, error) {\n\treturn lookup(id)\n}\n",
        "Find",
        3,
        5,
        "lookup",
    ),
    (
        "src/Store.java",
        "class Store {\n  Row find(int id) {\n    return lookup(id);\n  }\n}\n",
        "find",
        2,
        4,
        "lookup",
    ),
    (
        "src/store.c",
        "#include <stdio.h>\n\nint find(int id)\n{\n    return lookup(id);\n}\n",
        "find",
        3,
        6,
        "lookup",
    ),
    (
        "src/store.cpp",
        "namespace db {\nint find(int id) {\n  return lookup(id);\n}\n}\n",
        "find",
        2,
        4,
        "lookup",
    ),
    (
        "src/Store.cs",
        "class Store {\n  Row Find(int id) {\n    return Lookup(id);\n  }\n}\n",
        "Find",
        2,
        4,
        "Lookup",
    ),
    (
        "lib/store.rb",
        "class Store\n  def find(id)\n    lookup(id)\n  end\nend\n",
        "find",
        2,
        4,
        "lookup",
    ),
    (
        "src/Store.php",
        "<?php\nclass Store {\n  function find($id) {\n    return lookup($id);\n  }\n}\n",
        "find",
        3,
        5,
        "lookup",
    ),
    (
        "src/Store.kt",
        "class Store {\n  fun find(id: Int): Row? {\n    return lookup(id)\n  }\n}\n",
        "find",
        2,
        4,
        "lookup",
    ),
];

#[tokio::test]
async fn every_language_outlines_its_symbols_and_calls() {
    let analyzer = TreeSitterAnalyzer::new();
    let files = CASES
        .iter()
        .map(|(path, text, ..)| SourceFile {
            path: (*path).to_owned(),
            text: Arc::from(*text),
        })
        .collect();
    let outlines = analyzer.outline(files).await;
    let mut languages = Vec::new();
    for ((path, _, name, start, end, callee), outline) in CASES.iter().zip(outlines) {
        let outline = outline.unwrap_or_else(|| panic!("{path}: not outlined"));
        languages.push(outline.language);
        let symbol = outline
            .symbols
            .iter()
            .find(|s| s.name == *name)
            .unwrap_or_else(|| panic!("{path}: no `{name}` in {:?}", outline.symbols));
        assert_eq!(
            (symbol.start_line, symbol.end_line),
            (*start, *end),
            "{path}: `{name}` spans its whole body"
        );
        assert!(
            outline
                .references
                .iter()
                .any(|r| r.name == *callee && (*start..=*end).contains(&r.line)),
            "{path}: the call of `{callee}` is a use: {:?}",
            outline.references
        );
    }
    for grammar in GRAMMARS {
        assert!(
            languages.contains(&grammar.name),
            "{} has a case",
            grammar.name
        );
    }
}

#[tokio::test]
async fn classes_and_unknown_files() {
    let analyzer = TreeSitterAnalyzer::new();
    assert_eq!(analyzer.language_of("a/b/c.PY"), Some("python"));
    assert_eq!(analyzer.language_of("README.md"), None);
    assert_eq!(analyzer.language_of("Makefile"), None);
    let outlines = analyzer
        .outline(vec![
            SourceFile {
                path: "notes.txt".into(),
                text: Arc::from("def f(): pass\n"),
            },
            SourceFile {
                path: "m.py".into(),
                text: Arc::from("class A:\n    pass\n\n\nclass B(A):\n    x = 1\n"),
            },
            SourceFile {
                path: "broken.py".into(),
                text: Arc::from("def f(:\n    return (\n"),
            },
        ])
        .await;
    assert!(outlines[0].is_none(), "no grammar reads a .txt file");
    let classes = outlines[1].as_ref().unwrap();
    let b = classes.symbols.iter().find(|s| s.name == "B").unwrap();
    assert_eq!(
        (b.kind, b.start_line, b.end_line),
        (SymbolKind::Class, 5, 6)
    );
    assert!(
        outlines[2].is_some(),
        "a file that does not parse cleanly is still outlined"
    );
}
