//! Glob patterns: ignored files, and the file types and paths review rules target.

use globset::{Glob, GlobSet, GlobSetBuilder};

/// A compiled set of patterns. Patterns without a `/` also match at any depth
/// (`*.lock` matches `a/b/Cargo.lock`), as users of `.gitignore` expect.
#[derive(Debug, Clone)]
pub struct Patterns {
    set: GlobSet,
}

/// A pattern that cannot be compiled, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid pattern `{pattern}`: {reason}")]
pub struct PatternError {
    pub pattern: String,
    pub reason: String,
}

impl Patterns {
    /// # Errors
    /// The first pattern that is not a valid glob.
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Result<Self, PatternError> {
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns {
            let pattern = pattern.as_ref().trim();
            let variants = if pattern.contains('/') {
                vec![pattern.trim_start_matches('/').to_owned()]
            } else {
                vec![pattern.to_owned(), format!("**/{pattern}")]
            };
            for variant in variants {
                let glob = Glob::new(&variant).map_err(|e| PatternError {
                    pattern: pattern.to_owned(),
                    reason: e.kind().to_string(),
                })?;
                builder.add(glob);
            }
        }
        let set = builder.build().map_err(|e| PatternError {
            pattern: String::new(),
            reason: e.to_string(),
        })?;
        Ok(Self { set })
    }

    #[must_use]
    pub fn matches(&self, path: &str) -> bool {
        self.set.is_match(path)
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_patterns_match_at_any_depth_and_paths_from_the_root() {
        let p = Patterns::new(&["*.lock", "dist/**", "/vendor/*.js"]).unwrap();
        assert!(p.matches("Cargo.lock") && p.matches("web/yarn.lock"));
        assert!(p.matches("dist/app.min.js") && p.matches("dist/a/b.css"));
        assert!(p.matches("vendor/jquery.js"));
        assert!(
            !p.matches("src/dist/x.rs")
                && !p.matches("src/main.rs")
                && !p.matches("lib/vendor/x.js")
        );
    }

    #[test]
    fn invalid_patterns_are_named() {
        let err = Patterns::new(&["ok/*", "bad[["]).unwrap_err();
        assert_eq!(err.pattern, "bad[[");
        assert!(Patterns::new::<&str>(&[]).unwrap().is_empty());
    }
}
