//! How the release `reviewd` binary is linked, for a small idle memory footprint.
//!
//! - `link/startup.order` (written by `scripts/link-order.sh`) lists the functions the
//!   server runs from its start through its idle loop; the linker puts them first in
//!   `.text`. Spread over the binary, they made the kernel map 17–20 MB of code pages
//!   (each fault maps the page-cache folio and its neighbours); side by side, about 7 MB.
//! - Relative relocations are packed (`DT_RELR`): the loader reads 18 KB of them at
//!   start instead of 1.25 MB, which stayed resident. Only where the build machine's
//!   glibc is 2.36 or newer, since a packed binary needs that glibc to run.
//!
//! Both need LLD, the linker of Rust's `x86_64-unknown-linux-gnu` target since 1.90, so
//! they apply only there and only when no other linker is configured through the
//! environment. `REVIEWD_LINK_LAYOUT=0` turns both off. Debug builds are untouched.

use std::env;
use std::path::Path;
use std::process::Command;

const LAYOUT_SWITCH: &str = "REVIEWD_LINK_LAYOUT";
const TARGET_LINKER: &str = "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER";

fn main() {
    println!("cargo:rerun-if-changed=link/startup.order");
    println!("cargo:rerun-if-env-changed={LAYOUT_SWITCH}");
    println!("cargo:rerun-if-env-changed={TARGET_LINKER}");
    if !wanted() {
        return;
    }
    let order = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("link")
        .join("startup.order");
    if order.is_file() {
        link_arg(&format!("-Wl,--symbol-ordering-file={}", order.display()));
        // Names the build no longer has (a function inlined away, a dependency
        // upgraded) are skipped: a stale list costs memory, not a failed build.
        link_arg("-Wl,--no-warn-symbol-ordering");
    }
    if glibc_at_least(2, 36) {
        link_arg("-Wl,-z,pack-relative-relocs");
    }
}

/// A release build for the target whose default linker is LLD, not turned off.
fn wanted() -> bool {
    let var = |name: &str| env::var(name).unwrap_or_default();
    let release = var("PROFILE") == "release";
    let lld_target = var("TARGET") == "x86_64-unknown-linux-gnu";
    let own_linker = env::var_os(TARGET_LINKER).is_some()
        || var("CARGO_ENCODED_RUSTFLAGS").contains("link");
    release && lld_target && !own_linker && var(LAYOUT_SWITCH) != "0"
}

fn link_arg(arg: &str) {
    println!("cargo:rustc-link-arg-bin=reviewd={arg}");
}

/// The build machine's glibc, from `getconf GNU_LIBC_VERSION` ("glibc 2.36").
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let found = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    found >= (major, minor)
}
