//! Database backups with `pg_dump` into `BACKUP_DIR`: custom-format archives named
//! `reviewd-YYYYMMDDTHHMMSSZ.dump` (restore with `pg_restore`, see docs/operations.md),
//! written under a temporary name and renamed when complete, so a half-written file
//! is never taken for a backup. Archives older than `BACKUP_RETENTION_DAYS` are deleted.

use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

const PREFIX: &str = "reviewd-";
const SUFFIX: &str = ".dump";
const STAMP: &str = "%Y%m%dT%H%M%SZ";
/// A dump running longer is stopped and reported as failed.
const DUMP_TIMEOUT: Duration = Duration::from_secs(2 * 3600);

/// A finished backup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    pub path: PathBuf,
    pub size_bytes: u64,
}

/// Splits the password out of a `postgres://` URL: it goes to `pg_dump` through
/// `PGPASSWORD`, not its command line, which other users of the machine can read.
fn without_password(database_url: &str) -> (String, Option<String>) {
    match url::Url::parse(database_url) {
        Ok(mut url) => {
            let password = url.password().map(percent_decode);
            if password.is_some() && url.set_password(None).is_err() {
                return (database_url.to_owned(), None);
            }
            (url.to_string(), password)
        }
        Err(_) => (database_url.to_owned(), None),
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%' && i + 2 < bytes.len())
            .then(|| std::str::from_utf8(&bytes[i + 1..i + 3]).ok())
            .flatten()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        if let Some(v) = escaped {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Dumps the database into `dir`.
///
/// # Errors
/// A message naming what failed: `pg_dump` missing, its exit status and last error
/// line, a timeout, or the file system.
pub async fn run(database_url: &str, dir: &Path, now: DateTime<Utc>) -> Result<Backup, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = format!("{PREFIX}{}{SUFFIX}", now.format(STAMP));
    let path = dir.join(&name);
    let partial = dir.join(format!(".{name}.partial"));
    let (url, password) = without_password(database_url);
    let mut command = tokio::process::Command::new("pg_dump");
    command
        .arg("--format=custom")
        .arg("--no-owner")
        .arg("--file")
        .arg(&partial)
        .arg("--dbname")
        .arg(&url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(password) = password {
        command.env("PGPASSWORD", password);
    }
    let child = command
        .spawn()
        .map_err(|e| format!("cannot start pg_dump (install the PostgreSQL client): {e}"))?;
    let output = match tokio::time::timeout(DUMP_TIMEOUT, child.wait_with_output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => {
            let _ = std::fs::remove_file(&partial);
            return Err(format!("pg_dump failed: {e}"));
        }
        Err(_) => {
            let _ = std::fs::remove_file(&partial);
            return Err(format!(
                "pg_dump did not finish within {} s",
                DUMP_TIMEOUT.as_secs()
            ));
        }
    };
    if !output.status.success() {
        let _ = std::fs::remove_file(&partial);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or("").trim();
        return Err(format!("pg_dump exited with {}: {last}", output.status));
    }
    std::fs::rename(&partial, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    let size_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    Ok(Backup { path, size_bytes })
}

/// When a backup file was taken, from its name.
fn taken_at(name: &str) -> Option<DateTime<Utc>> {
    let stamp = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    NaiveDateTime::parse_from_str(stamp, STAMP)
        .ok()
        .map(|t| t.and_utc())
}

/// Deletes backups taken more than `retention_days` days before `now`, and temporary
/// files of dumps that died (older than a day). Returns the deleted paths.
///
/// # Errors
/// When the directory cannot be read.
pub fn prune(dir: &Path, retention_days: u32, now: DateTime<Utc>) -> std::io::Result<Vec<PathBuf>> {
    let cutoff = now - TimeDelta::days(i64::from(retention_days));
    let mut deleted = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let expired = match name
            .strip_prefix('.')
            .and_then(|n| n.strip_suffix(".partial"))
        {
            Some(dumped) => taken_at(dumped).is_some_and(|t| t < now - TimeDelta::days(1)),
            None => taken_at(&name).is_some_and(|t| t < cutoff),
        };
        if expired {
            let path = entry.path();
            match std::fs::remove_file(&path) {
                Ok(()) => deleted.push(path),
                Err(e) => tracing::warn!(path = %path.display(), error = %e, "backup.prune_failed"),
            }
        }
    }
    Ok(deleted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_leaves_the_url_for_the_environment() {
        let (url, password) = without_password("postgres://app:s%40cret@db:5432/reviewd");
        assert_eq!(url, "postgres://app@db:5432/reviewd");
        assert_eq!(password.as_deref(), Some("s@cret"));
        let (url, password) = without_password("postgres://root@127.0.0.1/reviewd");
        assert_eq!(url, "postgres://root@127.0.0.1/reviewd");
        assert_eq!(password, None);
    }

    #[test]
    fn prune_keeps_recent_backups_and_foreign_files() {
        let dir = std::env::temp_dir().join(format!("reviewd-backups-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "reviewd-20261122T020000Z.dump",
            "reviewd-20261116T020000Z.dump",
            "reviewd-20261114T020000Z.dump",
            ".reviewd-20261120T020000Z.dump.partial",
            ".reviewd-20261122T020000Z.dump.partial",
            "manual.dump",
        ] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        let now = DateTime::parse_from_rfc3339("2026-11-22T03:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let mut deleted: Vec<String> = prune(&dir, 7, now)
            .unwrap()
            .iter()
            .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
            .collect();
        deleted.sort();
        assert_eq!(
            deleted,
            [
                ".reviewd-20261120T020000Z.dump.partial",
                "reviewd-20261114T020000Z.dump"
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
