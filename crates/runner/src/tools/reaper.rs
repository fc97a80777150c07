//! A tool's end: its process group killed whatever happens, its standard error
//! drained so it never blocks on a full pipe.

use std::process::Stdio;
use tokio::io::AsyncReadExt;

/// Kills a tool's process group when dropped: its children (semgrep's engine, a
/// build, anything left in the background) go with it.
pub(super) struct GroupReaper(pub(super) Option<u32>);

impl Drop for GroupReaper {
    fn drop(&mut self) {
        kill_group(self.0);
    }
}

pub(super) fn kill_group(group: Option<u32>) {
    if let Some(pgid) = group {
        // A group already gone is fine: `kill` fails quietly.
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Reads `from` to its end, keeping its first `cap` bytes: a chatty tool's
/// standard error must not fill its pipe and block it.
pub(super) async fn keep_head(
    from: &mut (impl tokio::io::AsyncRead + Unpin),
    into: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<usize> {
    let mut buf = [0u8; 8192];
    let mut total = 0;
    loop {
        let n = from.read(&mut buf).await?;
        if n == 0 {
            return Ok(total);
        }
        total += n;
        let room = cap.saturating_sub(into.len());
        into.extend_from_slice(&buf[..n.min(room)]);
    }
}
