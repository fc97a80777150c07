//! How the release `reviewd` binary is linked: with its relative relocations packed
//! (`DT_RELR`), so the loader reads 18 KB of them at start instead of 1.25 MB, which
//! stayed resident as private (anonymous) memory.
//!
//! Only where it is free: a release build for `x86_64-unknown-linux-gnu` with rustc 1.90 or
//! newer (whose default linker, LLD, packs them), no other linker configured
//! (`target.<triple>.linker` in Cargo's configuration or its environment variable, or
//! linker flags in `RUSTFLAGS`), not a cross build, and a build machine whose glibc is 2.36
//! or newer, since a packed binary needs that glibc to run. `REVIEWD_PACKED_RELOCS=0` turns
//! it off. Debug builds are untouched.
//!
//! The release link no longer orders functions by a hand-kept list of the start's
//! functions: that saved pages mapped from the binary, which the kernel reclaims, not
//! anonymous memory (docs/benchmarks.md, issue 38).

use std::env;
use std::process::Command;

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
    for switch in [RELR_SWITCH, CONFIGURED_LINKER] {
        println!("cargo:rerun-if-env-changed={switch}");
    }
    let native = env::var("HOST").ok() == env::var("TARGET").ok();
    if wanted() && native && glibc_at_least(2, 36) {
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
    release && lld_target && rustc_at_least(90) && !own_linker && var(RELR_SWITCH) != "0"
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
