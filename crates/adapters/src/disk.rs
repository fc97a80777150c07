//! Disk usage through `df -Pk` (POSIX output), which every Debian system has: no
//! unsafe `statvfs` call in a crate that forbids unsafe code.

use async_trait::async_trait;
use reviewd_domain::ports::{DiskSpace, DiskUsage};
use std::path::Path;

pub struct DfDiskUsage;

#[async_trait]
impl DiskUsage for DfDiskUsage {
    async fn usage(&self, path: &Path) -> Result<DiskSpace, String> {
        let out = tokio::process::Command::new("df")
            .arg("-Pk")
            .arg(path)
            .output()
            .await
            .map_err(|e| format!("cannot run df: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
        }
        parse_df(&String::from_utf8_lossy(&out.stdout))
    }
}

/// The second line of `df -Pk`: filesystem, 1024-blocks, used, available, ...
fn parse_df(output: &str) -> Result<DiskSpace, String> {
    let line = output
        .lines()
        .nth(1)
        .ok_or("df printed no filesystem line")?;
    let fields: Vec<&str> = line.split_whitespace().collect();
    let number = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .ok_or_else(|| format!("unexpected df line: {line}"))
    };
    Ok(DiskSpace {
        total_bytes: number(1)? * 1024,
        available_bytes: number(3)? * 1024,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_posix_df_output() {
        let out = "Filesystem     1024-blocks      Used Available Capacity Mounted on\n/dev/vda        263174212 12345678 250000000       5% /\n";
        assert_eq!(
            parse_df(out).unwrap(),
            DiskSpace {
                total_bytes: 263_174_212 * 1024,
                available_bytes: 250_000_000 * 1024
            }
        );
        assert!(parse_df("Filesystem\n").is_err());
        assert!(parse_df("header\nfs x y z\n").is_err());
    }

    #[tokio::test]
    async fn measures_a_real_directory() {
        let space = DfDiskUsage.usage(&std::env::temp_dir()).await.unwrap();
        assert!(space.total_bytes > 0 && space.available_bytes <= space.total_bytes);
    }
}
