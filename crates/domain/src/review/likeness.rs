//! Whether two findings say the same thing in other words. A model rewords a
//! finding from one round to the next ("unwrap() panics when foo fails" becomes
//! "Calling unwrap() here will panic if foo fails"), so a finding the team
//! rejected would come back under a new fingerprint. Two findings are alike when
//! they are on the same file, name the same code (their symbols), and share most
//! of their content words once stemmed.

use rust_stemmers::{Algorithm, Stemmer};
use std::collections::BTreeSet;
use std::sync::LazyLock;

/// The share of the two findings' content words (all of them, both sides) that
/// they must have in common: measured on the union, so that a short, generic
/// finding does not swallow every longer one on its file.
const SHARED_WORDS: f64 = 0.4;
/// Fewer shared words than this is never the same finding (unless the words are
/// all the same): one word in common says little.
const MIN_SHARED: usize = 2;

/// Words that carry no finding's meaning.
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "being", "but", "by", "can", "could", "did", "do", "does", "for", "from", "has",
    "have", "here", "how", "if", "in", "into", "is", "it", "its", "may", "might", "more", "must",
    "no", "not", "of", "on", "or", "should", "so", "such", "than", "that", "the", "their", "then",
    "there", "these", "this", "those", "to", "too", "use", "used", "using", "was", "when", "where",
    "which", "while", "will", "with", "would", "you", "your",
];

static ENGLISH: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// What a finding says, reduced to what survives a rewording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gist {
    file: String,
    /// Code the message names: `backticked` spans and identifiers that look like
    /// code (`foo()`, `snake_case`, `a.b`, `a::b`, `camelCase`), lowercased.
    symbols: BTreeSet<String>,
    /// Stemmed content words.
    words: BTreeSet<String>,
}

impl Gist {
    #[must_use]
    pub fn of(file_path: &str, message: &str) -> Gist {
        let mut symbols = BTreeSet::new();
        // The prose around the code: a symbol's pieces are no content words
        // (`retry_count is never reset` and `... never incremented` differ in
        // their prose alone).
        let mut prose = String::new();
        for (n, span) in message.split('`').enumerate() {
            if n % 2 == 1 {
                symbols.extend(symbol(span));
                continue;
            }
            for token in span.split_whitespace() {
                if looks_like_code(token) {
                    symbols.extend(symbol(token));
                } else {
                    prose.push_str(token);
                    prose.push(' ');
                }
            }
        }
        let lowered = prose.to_lowercase();
        // Short words stay: `b is never used` and `c is never used` differ by one.
        let words = lowered
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty() && !STOPWORDS.contains(w))
            .map(|w| ENGLISH.stem(w).into_owned())
            .collect();
        Gist {
            file: file_path.to_owned(),
            symbols,
            words,
        }
    }

    /// The same finding reworded (or not reworded at all).
    #[must_use]
    pub fn alike(&self, other: &Gist) -> bool {
        if self.file != other.file {
            return false;
        }
        // Code named on one side only, or different code: another finding.
        if self.symbols.is_empty() != other.symbols.is_empty()
            || (!self.symbols.is_empty() && self.symbols.is_disjoint(&other.symbols))
        {
            return false;
        }
        if self.words == other.words {
            return !self.words.is_empty() || !self.symbols.is_empty();
        }
        let shared = self.words.intersection(&other.words).count();
        let all = self.words.union(&other.words).count();
        #[expect(
            clippy::cast_precision_loss,
            reason = "word counts of one message are far below 2^52"
        )]
        let share = shared as f64 / all.max(1) as f64;
        shared >= MIN_SHARED && share >= SHARED_WORDS
    }
}

/// A token that is code rather than prose.
fn looks_like_code(token: &str) -> bool {
    let t = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '(' && c != ')' && c != '_');
    let inner = t.trim_end_matches("()");
    t.ends_with("()")
        || inner.contains('_')
        || inner.contains("::")
        // `self.count`, not `e.g`.
        || inner
            .split_once('.')
            .is_some_and(|(a, b)| a.len() > 1 && b.len() > 1)
        || inner
            .chars()
            .zip(inner.chars().skip(1))
            .any(|(a, b)| a.is_lowercase() && b.is_uppercase())
}

/// The symbol a span names, without call parentheses or trailing punctuation.
fn symbol(span: &str) -> Option<String> {
    let s = span
        .trim()
        .trim_matches(|c: char| matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '"' | '\''))
        .trim_end_matches("()")
        .to_lowercase();
    (!s.is_empty() && s.len() <= 200).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alike(a: &str, b: &str) -> bool {
        Gist::of("src/app.rs", a).alike(&Gist::of("src/app.rs", b))
    }

    #[test]
    fn a_reworded_finding_is_the_same_finding() {
        let said = "unwrap() panics when foo fails; return the error instead.";
        for reworded in [
            "Calling unwrap() here will panic if foo fails.",
            "This `unwrap()` panics when foo() fails: return the error.",
            "UNWRAP() PANICS WHEN FOO FAILS",
            "If foo fails, the unwrap() call panics.",
        ] {
            assert!(alike(said, reworded), "{reworded}");
        }
    }

    #[test]
    fn another_finding_on_the_same_code_is_not() {
        let said = "unwrap() panics when foo fails; return the error instead.";
        for other in [
            "The result of unwrap() is discarded.",
            "`expect()` panics when foo fails; return the error instead.",
            "Consider logging before run().",
            "",
        ] {
            assert!(!alike(said, other), "{other}");
        }
        for (a, b) in [
            (
                "`retry_count` is never reset",
                "`retry_count` is never incremented",
            ),
            (
                "Error is silently ignored.",
                "The error from `fs::write` is silently ignored",
            ),
        ] {
            assert!(!alike(a, b), "{a} / {b}");
        }
        let short = "b is never used";
        assert!(alike(short, "The variable b is never used anywhere."));
        for other in ["c is never used", "x is never closed"] {
            assert!(!alike(short, other), "{other}");
        }
        assert!(
            !Gist::of("src/a.rs", said).alike(&Gist::of("src/b.rs", said)),
            "another file is another finding"
        );
    }

    #[test]
    fn symbols_are_read_from_backticks_and_code_shapes() {
        let g = Gist::of(
            "a.rs",
            "`Config::load` calls parse_env() and self.retryCount, once.",
        );
        let symbols: Vec<&str> = g.symbols.iter().map(String::as_str).collect();
        assert_eq!(
            symbols,
            ["config::load", "parse_env", "self.retrycount"],
            "{g:?}"
        );
        assert!(
            Gist::of("a.rs", "Plain words, e.g. once.")
                .symbols
                .is_empty()
        );
    }
}
