//! The grammars reviewd parses, the file names each reads, and each one's tags
//! query: the grammar crate's own, or ours (`queries/`) where the crate ships
//! none (Kotlin), one that tags a function by its one-line declarator and no
//! calls (C, C++), or one the tags engine refuses (C#); PHP's gets the plain
//! calls it misses.

use tree_sitter::Language;

/// One grammar.
pub struct Grammar {
    /// The language's name (`rust`), as outlines and code fences carry it.
    pub name: &'static str,
    /// File extensions it reads, without the dot.
    pub extensions: &'static [&'static str],
    pub language: fn() -> Language,
    /// The tags query: `@definition.*`, `@reference.*` and `@name` captures.
    pub tags: fn() -> String,
    /// Local scopes, so that uses of local variables are not taken for
    /// references to definitions elsewhere.
    pub locals: &'static str,
}

/// TypeScript's grammar extends JavaScript's: its definitions are those of
/// JavaScript plus its own (interfaces, signatures, abstract classes).
fn typescript_tags() -> String {
    format!(
        "{}\n{}",
        tree_sitter_javascript::TAGS_QUERY,
        tree_sitter_typescript::TAGS_QUERY
    )
}

pub static GRAMMARS: &[Grammar] = &[
    Grammar {
        name: "rust",
        extensions: &["rs"],
        language: || tree_sitter_rust::LANGUAGE.into(),
        tags: || tree_sitter_rust::TAGS_QUERY.to_owned(),
        locals: "",
    },
    Grammar {
        name: "python",
        extensions: &["py", "pyi"],
        language: || tree_sitter_python::LANGUAGE.into(),
        tags: || tree_sitter_python::TAGS_QUERY.to_owned(),
        locals: "",
    },
    Grammar {
        name: "javascript",
        extensions: &["js", "mjs", "cjs", "jsx"],
        language: || tree_sitter_javascript::LANGUAGE.into(),
        tags: || tree_sitter_javascript::TAGS_QUERY.to_owned(),
        locals: tree_sitter_javascript::LOCALS_QUERY,
    },
    Grammar {
        name: "typescript",
        extensions: &["ts", "mts", "cts"],
        language: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        tags: typescript_tags,
        locals: "",
    },
    Grammar {
        name: "tsx",
        extensions: &["tsx"],
        language: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        tags: typescript_tags,
        locals: "",
    },
    Grammar {
        name: "go",
        extensions: &["go"],
        language: || tree_sitter_go::LANGUAGE.into(),
        tags: || tree_sitter_go::TAGS_QUERY.to_owned(),
        locals: "",
    },
    Grammar {
        name: "java",
        extensions: &["java"],
        language: || tree_sitter_java::LANGUAGE.into(),
        tags: || tree_sitter_java::TAGS_QUERY.to_owned(),
        locals: "",
    },
    Grammar {
        name: "c",
        extensions: &["c", "h"],
        language: || tree_sitter_c::LANGUAGE.into(),
        tags: || include_str!("../queries/c-tags.scm").to_owned(),
        locals: "",
    },
    Grammar {
        name: "cpp",
        extensions: &["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp"],
        language: || tree_sitter_cpp::LANGUAGE.into(),
        tags: || include_str!("../queries/cpp-tags.scm").to_owned(),
        locals: "",
    },
    Grammar {
        name: "csharp",
        extensions: &["cs"],
        language: || tree_sitter_c_sharp::LANGUAGE.into(),
        tags: || include_str!("../queries/csharp-tags.scm").to_owned(),
        locals: "",
    },
    Grammar {
        name: "ruby",
        extensions: &["rb", "rake", "gemspec"],
        language: || tree_sitter_ruby::LANGUAGE.into(),
        tags: || tree_sitter_ruby::TAGS_QUERY.to_owned(),
        locals: "",
    },
    Grammar {
        name: "php",
        extensions: &["php", "phtml"],
        language: || tree_sitter_php::LANGUAGE_PHP.into(),
        tags: || {
            format!(
                "{}\n{}",
                tree_sitter_php::TAGS_QUERY,
                include_str!("../queries/php-extra-tags.scm")
            )
        },
        locals: "",
    },
    Grammar {
        name: "kotlin",
        extensions: &["kt", "kts"],
        language: || tree_sitter_kotlin_ng::LANGUAGE.into(),
        tags: || include_str!("../queries/kotlin-tags.scm").to_owned(),
        locals: "",
    },
];

/// The grammar that reads `path`, by its extension.
#[must_use]
pub fn for_path(path: &str) -> Option<usize> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let (_, ext) = name.rsplit_once('.')?;
    let ext = ext.to_ascii_lowercase();
    GRAMMARS
        .iter()
        .position(|g| g.extensions.contains(&ext.as_str()))
}
