//! Signals and process lookups through `kill` and `/proc`: the suite has no unsafe
//! code and no signal crate.

use std::process::Command;
use std::time::{Duration, Instant};

/// Sends `SIG<name>` (`KILL`, `STOP`, `CONT`) to `pid`.
pub fn signal(pid: u32, name: &str) {
    let _ = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        // A process that already went is no news.
        .stderr(std::process::Stdio::null())
        .status();
}

/// The process's state letter and parent, from `/proc/<pid>/stat` (the command name
/// in parentheses may hold spaces: fields are read after its closing one).
fn state_and_parent(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat.get(stat.rfind(')')? + 2..)?.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((state, parent))
}

/// Whether `pid` runs (a zombie waiting for its parent does not).
pub fn alive(pid: u32) -> bool {
    state_and_parent(pid).is_some_and(|(state, _)| state != 'Z')
}

/// The processes whose parent is `parent`.
pub fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| state_and_parent(pid).is_some_and(|(_, p)| p == parent))
        .collect()
}

/// Waits until none of `pids` runs; whether that happened within `limit`.
pub fn wait_gone(pids: &[u32], limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while pids.iter().any(|&p| alive(p)) {
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// The resident set of `pid` in KiB (`VmRSS` in `/proc/<pid>/status`).
pub fn rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS:")
}

/// A KiB field of `/proc/<pid>/status` (`VmRSS:`, `RssAnon:`, `RssFile:`).
pub fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
