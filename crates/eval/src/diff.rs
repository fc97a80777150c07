//! A case's MR diff, computed from its two trees as the platforms show one:
//! per file, unified hunks with 3 lines of context and no header.

use crate::tree::Tree;
use reviewd_domain::model::diff::{ChangeType, FileDiff};
use similar::TextDiff;

/// The changed files between `base` and `head`, by path (renames are not
/// detected: a moved file is one deleted and one new).
#[must_use]
pub fn mr_diff(base: &Tree, head: &Tree) -> Vec<FileDiff> {
    let mut paths: Vec<&String> = base.keys().chain(head.keys()).collect();
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|path| {
            let (old, new) = (base.get(path), head.get(path));
            let change_type = match (old, new) {
                (None, Some(_)) => ChangeType::New,
                (Some(_), None) => ChangeType::Deleted,
                (Some(a), Some(b)) if a == b => return None,
                _ => ChangeType::Modified,
            };
            fn text(b: Option<&Vec<u8>>) -> Option<&str> {
                match b {
                    Some(bytes) => std::str::from_utf8(bytes).ok(),
                    None => Some(""),
                }
            }
            let diff = match (text(old), text(new)) {
                (Some(a), Some(b)) => Some(hunks(a, b)),
                _ => None, // binary
            };
            Some(FileDiff {
                new_path: path.clone(),
                old_path: None,
                change_type,
                diff,
            })
        })
        .collect()
}

/// The unified hunks of `old` to `new`.
#[must_use]
pub fn hunks(old: &str, new: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_compared_as_the_platforms_show_them() {
        let base = Tree::from([
            ("a.py".to_owned(), b"x = 1\ny = 2\nz = 3\n".to_vec()),
            ("gone.py".to_owned(), b"old\n".to_vec()),
            ("same.py".to_owned(), b"same\n".to_vec()),
        ]);
        let head = Tree::from([
            ("a.py".to_owned(), b"x = 1\ny = 20\nz = 3\n".to_vec()),
            ("new.py".to_owned(), b"fresh\n".to_vec()),
            ("same.py".to_owned(), b"same\n".to_vec()),
            ("img.bin".to_owned(), vec![0xff, 0xfe, 0x00]),
        ]);
        let diff = mr_diff(&base, &head);
        let kinds: Vec<_> = diff
            .iter()
            .map(|d| (d.new_path.as_str(), d.change_type))
            .collect();
        assert_eq!(
            kinds,
            [
                ("a.py", ChangeType::Modified),
                ("gone.py", ChangeType::Deleted),
                ("img.bin", ChangeType::New),
                ("new.py", ChangeType::New),
            ]
        );
        assert_eq!(
            diff[0].diff.as_deref(),
            Some("@@ -1,3 +1,3 @@\n x = 1\n-y = 2\n+y = 20\n z = 3\n")
        );
        assert_eq!(diff[2].diff, None, "a binary file has no text diff");
    }
}
