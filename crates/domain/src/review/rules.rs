//! Which review rules apply to a file.

use super::globs::Patterns;
use crate::ports::ActiveRule;

/// Does `rule` target `path`? File-type patterns match the file name (`*.rs`; a bare
/// `rs` or `.rs` means that extension), path patterns the whole path; a rule with
/// neither applies to every file.
#[must_use]
pub fn applies(rule: &ActiveRule, path: &str) -> bool {
    let types: Vec<String> = rule
        .file_type_patterns
        .iter()
        .map(|p| {
            let p = p.trim();
            if p.contains('*') || p.contains('?') {
                p.to_owned()
            } else {
                format!("*.{}", p.trim_start_matches('.'))
            }
        })
        .collect();
    let matches = |patterns: &[String]| {
        patterns.is_empty() || Patterns::new(patterns).is_ok_and(|set| set.matches(path))
    };
    matches(&types) && matches(&rule.file_path_patterns)
}

/// The rules for a file, in priority order (the input is already sorted).
#[must_use]
pub fn for_file<'a>(rules: &'a [ActiveRule], path: &str) -> Vec<&'a ActiveRule> {
    rules.iter().filter(|r| applies(r, path)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn rule(types: &[&str], paths: &[&str]) -> ActiveRule {
        ActiveRule {
            id: Uuid::nil(),
            rule_name: "r".into(),
            instructions: "i".into(),
            file_type_patterns: types.iter().map(|s| (*s).to_owned()).collect(),
            file_path_patterns: paths.iter().map(|s| (*s).to_owned()).collect(),
            priority: 0,
        }
    }

    #[test]
    fn types_paths_and_catch_alls() {
        assert!(applies(&rule(&["*.rs"], &[]), "src/a.rs"));
        assert!(applies(&rule(&["rs"], &[]), "src/a.rs") && applies(&rule(&[".rs"], &[]), "a.rs"));
        assert!(!applies(&rule(&["*.rs"], &[]), "src/a.ts"));
        assert!(applies(&rule(&["*.rs"], &["src/db/**"]), "src/db/pool.rs"));
        assert!(
            !applies(&rule(&["*.rs"], &["src/db/**"]), "src/web/pool.rs"),
            "both lists must match"
        );
        assert!(applies(&rule(&[], &[]), "anything.txt"));
    }
}
