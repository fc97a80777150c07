//! What this machine offers to confine a tool (`unshare --net`, `prlimit`),
//! probed once, and where programs are found.

use std::path::Path;
use std::process::Stdio;
use std::sync::OnceLock;

/// Which wrappers this machine offers, probed once.
#[derive(Debug, Clone, Copy)]
pub(super) struct Wrappers {
    pub(super) prlimit: bool,
    /// `unshare` arguments that gave a process no network, if any worked.
    pub(super) unshare: Option<&'static [&'static str]>,
}

pub(super) fn wrappers() -> Wrappers {
    static FOUND: OnceLock<Wrappers> = OnceLock::new();
    *FOUND.get_or_init(|| {
        let works = |program: &str, args: &[&str]| {
            std::process::Command::new(program)
                .args(args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        // As root `--net` alone; otherwise a user namespace maps the user in.
        let unshare: Option<&'static [&'static str]> = [
            &["--net"][..],
            &["--net", "--map-current-user"][..],
            &["--net", "--map-root-user"][..],
        ]
        .into_iter()
        .find(|args| works("unshare", &[args, &["true"][..]].concat()));
        Wrappers {
            prlimit: works("prlimit", &["--data=1073741824", "true"]),
            unshare,
        }
    })
}

/// Whether `program` can be found on the runner's `PATH` (a path with a slash:
/// whether it is a file under `dir`).
#[must_use]
pub fn installed(dir: &Path, program: &str) -> bool {
    if program.contains('/') {
        return dir.join(program).is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}
