//! File sizes against `bounds.txt`: no source file over [`MOST_LINES`] but the generated ones
//! and the contract suites (`exempt`) and those listed as still to split (`oversized`, a list
//! that may only shrink), and the median file no longer than `median`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub const MOST_LINES: usize = 600;

#[derive(Debug, Default)]
pub struct Bounds {
    pub median: usize,
    pub oversized: BTreeSet<String>,
    pub exempt: Vec<String>,
}

impl Bounds {
    pub fn parse(text: &str) -> Result<Bounds, String> {
        let mut bounds = Bounds::default();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.split_once(' ') {
                Some(("median", n)) => {
                    bounds.median = n.trim().parse().map_err(|e| format!("median: {e}"))?;
                }
                Some(("oversized", path)) => {
                    bounds.oversized.insert(path.trim().to_owned());
                }
                Some(("exempt", path)) => bounds.exempt.push(path.trim().to_owned()),
                _ => return Err(format!("bounds: cannot read `{line}`")),
            }
        }
        Ok(bounds)
    }

    fn is_exempt(&self, path: &str) -> bool {
        self.exempt
            .iter()
            .any(|e| path == e || (e.ends_with('/') && path.starts_with(e.as_str())))
    }
}

/// What the files measure, and what breaks the bounds.
pub struct Report {
    pub files: usize,
    pub median: usize,
    pub problems: Vec<String>,
}

pub fn check(root: &Path, files: &BTreeSet<PathBuf>, bounds: &Bounds) -> Result<Report, String> {
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    let mut over = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let n = text.lines().count();
        lines.push(n);
        let name = file
            .strip_prefix(root)
            .unwrap_or(file)
            .to_string_lossy()
            .into_owned();
        if n > MOST_LINES && !bounds.is_exempt(&name) {
            over.insert(name.clone());
            if !bounds.oversized.contains(&name) {
                problems.push(format!("{name}: {n} lines, over {MOST_LINES}: split it"));
            }
        }
    }
    for listed in bounds.oversized.difference(&over) {
        problems.push(format!(
            "{listed} is listed as oversized but is not (any more): remove it from bounds.txt"
        ));
    }
    lines.sort_unstable();
    let median = lines.get(lines.len() / 2).copied().unwrap_or(0);
    if median > bounds.median {
        problems.push(format!(
            "the median source file has {median} lines, over bounds.txt's {}",
            bounds.median
        ));
    }
    Ok(Report {
        files: lines.len(),
        median,
        problems,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `check` over files of `lines` lines each, named as given, under a scratch root.
    fn check_files(name: &str, files: &[(&str, usize)], bounds: &str) -> Report {
        let root = std::env::temp_dir().join(format!(
            "reviewd-module-graph-sizes-{name}-{}",
            std::process::id()
        ));
        let mut paths = BTreeSet::new();
        for (path, lines) in files {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, "x\n".repeat(*lines)).unwrap();
            paths.insert(file);
        }
        let report = check(&root, &paths, &Bounds::parse(bounds).unwrap()).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        report
    }

    #[test]
    fn a_file_grown_past_the_bound_and_not_listed_fails() {
        let report = check_files("grown", &[("a.rs", 601), ("b.rs", 10)], "median 1000\n");
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert!(report.problems[0].starts_with("a.rs: 601 lines"));
    }

    #[test]
    fn a_listed_file_once_split_must_leave_the_list() {
        let report = check_files("split", &[("a.rs", 300)], "median 1000\noversized a.rs\n");
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert!(report.problems[0].contains("remove it from bounds.txt"));
    }

    #[test]
    fn listed_and_exempt_files_pass_and_the_median_is_held() {
        let bounds = "median 200\noversized a.rs\nexempt gen/\n";
        let report = check_files(
            "held",
            &[
                ("a.rs", 700),
                ("gen/s.rs", 900),
                ("c.rs", 100),
                ("d.rs", 100),
                ("e.rs", 100),
            ],
            bounds,
        );
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        let report = check_files("median", &[("a.rs", 300), ("c.rs", 300)], "median 200\n");
        assert_eq!(report.median, 300);
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    }

    #[test]
    fn a_bounds_line_that_cannot_be_read_is_an_error() {
        assert!(Bounds::parse("median twelve\n").is_err());
        assert!(Bounds::parse("largest 600\n").is_err());
    }
}
