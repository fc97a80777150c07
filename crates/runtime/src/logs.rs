//! Log files in `LOG_DIR`: one per UTC day, named `reviewd.YYYY-MM-DD.log` by the
//! rolling appender; files older than `LOG_RETENTION_DAYS` days are deleted.

use chrono::{NaiveDate, TimeDelta};
use std::path::{Path, PathBuf};

pub const LOG_FILE_PREFIX: &str = "reviewd";
pub const LOG_FILE_SUFFIX: &str = "log";

/// The day of a log file from its name; other files are not ours to delete.
fn file_day(name: &str) -> Option<NaiveDate> {
    let day = name
        .strip_prefix(LOG_FILE_PREFIX)?
        .strip_prefix('.')?
        .strip_suffix(LOG_FILE_SUFFIX)?
        .strip_suffix('.')?;
    NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()
}

/// Deletes log files of days before `today - retention_days` (today's file and the
/// `retention_days` before it are kept). Returns the deleted paths.
///
/// # Errors
/// When the directory cannot be read; a file that cannot be deleted is logged and skipped.
pub fn prune(dir: &Path, retention_days: u32, today: NaiveDate) -> std::io::Result<Vec<PathBuf>> {
    let oldest_kept = today - TimeDelta::days(i64::from(retention_days));
    let mut deleted = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(day) = name.to_str().and_then(file_day) else {
            continue;
        };
        if day < oldest_kept {
            let path = entry.path();
            match std::fs::remove_file(&path) {
                Ok(()) => deleted.push(path),
                Err(e) => tracing::warn!(path = %path.display(), error = %e, "logs.prune_failed"),
            }
        }
    }
    Ok(deleted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_files_older_than_retention_are_deleted() {
        let dir = std::env::temp_dir().join(format!("reviewd-logs-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "reviewd.2026-11-22.log",
            "reviewd.2026-11-15.log",
            "reviewd.2026-11-14.log",
            "reviewd.2026-10-01.log",
            "other.2026-10-01.log",
            "reviewd.notadate.log",
            "notes.txt",
        ] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        let mut deleted: Vec<String> = prune(&dir, 7, today)
            .unwrap()
            .iter()
            .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
            .collect();
        deleted.sort();
        assert_eq!(
            deleted,
            ["reviewd.2026-10-01.log", "reviewd.2026-11-14.log"]
        );
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "notes.txt",
                "other.2026-10-01.log",
                "reviewd.2026-11-15.log",
                "reviewd.2026-11-22.log",
                "reviewd.notadate.log"
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
