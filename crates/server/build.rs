//! How the release `reviewd` binary is linked, for a small idle memory footprint.
//!
//! - `link/startup.order` (written by `scripts/link-order.sh`) lists the functions the
//!   server runs from its start through its idle loop; the linker puts them first in
//!   `.text`. Spread over the binary, they made the kernel map 17–20 MB of code pages
//!   (each fault maps the page-cache folio and its neighbours); side by side, about 7 MB.
//! - Relative relocations are packed (`DT_RELR`): the loader reads 18 KB of them at
//!   start instead of 1.25 MB, which stayed resident. Only where the build machine's
//!   glibc is 2.36 or newer and the build is not a cross build, since a packed binary
//!   needs that glibc to run (`REVIEWD_PACKED_RELOCS=0` turns this alone off).
//!
//! Both need LLD, the linker of Rust's `x86_64-unknown-linux-gnu` target since 1.90, so
//! they apply only to that target with rustc 1.90 or newer, and only when no other
//! linker is configured (`target.<triple>.linker` in Cargo's configuration or its
//! environment variable, or linker flags in `RUSTFLAGS`). `REVIEWD_LINK_LAYOUT=0` turns
//! both off. Debug builds are untouched.

use std::env;
use std::path::Path;
use std::process::Command;

const LAYOUT_SWITCH: &str = "REVIEWD_LINK_LAYOUT";
const RELR_SWITCH: &str = "REVIEWD_PACKED_RELOCS";
/// Cargo sets it for build scripts when a linker is configured for the target.
const CONFIGURED_LINKER: &str = "RUSTC_LINKER";
/// `RUSTFLAGS` that choose another linker or change how it is driven.
const LINKER_FLAGS: [&str; 5] = [
    "linker=",
    "linker-flavor",
    "linker-features",
    "link-self-contained",
    "-fuse-ld",
];

fn main() {
    println!("cargo:rerun-if-changed=link/startup.order");
    for switch in [LAYOUT_SWITCH, RELR_SWITCH, CONFIGURED_LINKER] {
        println!("cargo:rerun-if-env-changed={switch}");
    }
    if !wanted() {
        return;
    }
    let order = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("link")
        .join("startup.order");
    if order.is_file() {
        // `-Xlinker` pairs rather than `-Wl,`, which would split a path at its commas.
        linker_arg(&format!("--symbol-ordering-file={}", order.display()));
        // Names the build no longer has (a function inlined away, a dependency
        // upgraded) are skipped: a stale list costs memory, not a failed build.
        linker_arg("--no-warn-symbol-ordering");
    }
    let native = env::var("HOST").ok() == env::var("TARGET").ok();
    if native && env::var(RELR_SWITCH).as_deref() != Ok("0") && glibc_at_least(2, 36) {
        linker_arg("-z");
        linker_arg("pack-relative-relocs");
    }
}

/// A release build for the target whose default linker is LLD, not turned off.
fn wanted() -> bool {
    let var = |name: &str| env::var(name).unwrap_or_default();
    let release = var("PROFILE") == "release";
    let lld_target = var("TARGET") == "x86_64-unknown-linux-gnu";
    let rustflags = var("CARGO_ENCODED_RUSTFLAGS");
    let own_linker = env::var_os(CONFIGURED_LINKER).is_some()
        || LINKER_FLAGS.iter().any(|flag| rustflags.contains(flag));
    release && lld_target && rustc_at_least(90) && !own_linker && var(LAYOUT_SWITCH) != "0"
}

/// Whether the compiler is 1.`minor` or newer (`rustc -vV`: "release: 1.95.0").
fn rustc_at_least(minor: u32) -> bool {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(out) = Command::new(rustc).arg("-vV").output() else {
        return false;
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("release: 1."))
        .and_then(|rest| rest.split('.').next()?.parse::<u32>().ok())
        .is_some_and(|found| found >= minor)
}

/// One argument for the linker itself, through the compiler driver.
fn linker_arg(arg: &str) {
    println!("cargo:rustc-link-arg-bin=reviewd=-Xlinker");
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
