# shellcheck shell=bash
# Helpers shared by the scripts in this folder. Source it; it only defines functions.

reviewd_info() { printf 'reviewd: %s\n' "$*" >&2; }
reviewd_error() { printf 'reviewd: error: %s\n' "$*" >&2; }

# The repository root (the parent of this scripts/ folder).
reviewd_root() { (cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd); }

# A URL with its password replaced by ***, for messages.
reviewd_redact() { printf '%s' "$1" | sed -E 's#(://[^:/@]*:)[^@]*@#\1***@#'; }

# Compiled dependencies are shared by every clone (CI starts from a fresh clone each time), so the
# target directory defaults to a per-user cache instead of ./target. An explicit CARGO_TARGET_DIR wins.
reviewd_cargo_env() {
    # The server's allocator (jemalloc, built from C by tikv-jemalloc-sys) needs make
    # besides the C compiler that linking needs anyway.
    if ! command -v make >/dev/null 2>&1 && declare -F _reviewd_apt_install >/dev/null; then
        _reviewd_apt_install make
    fi
    if [ -n "${CARGO_TARGET_DIR:-}" ]; then
        return 0
    fi
    local cache="${XDG_CACHE_HOME:-}"
    if [ -z "$cache" ] && [ -n "${HOME:-}" ]; then
        cache="$HOME/.cache"
    fi
    if [ -n "$cache" ]; then
        export CARGO_TARGET_DIR="$cache/reviewd/target"
    fi
}

# Runs a command, or only prints it when REVIEWD_DRY_RUN=1 (lets the scripts be checked without a build).
reviewd_cmd() {
    if [ "${REVIEWD_DRY_RUN:-0}" = 1 ]; then
        printf 'reviewd: dry run:' >&2
        printf ' %q' "$@" >&2
        printf '\n' >&2
        return 0
    fi
    "$@"
}

# reviewd_cargo_tool BIN CRATE VERSION [cargo install args...]: makes the command BIN (a tool the
# scripts run, not part of the build) the pinned VERSION, installing CRATE with
# `cargo install --locked` from crates.io when BIN is missing or reports another version.
# The build runs in cargo's own temporary directory, not the shared CARGO_TARGET_DIR.
reviewd_cargo_tool() {
    local bin="$1" crate="$2" version="$3"
    shift 3
    if command -v "$bin" >/dev/null 2>&1 && "$bin" --version 2>/dev/null | grep -qwF -- "$version"; then
        return 0
    fi
    local log
    log="$(mktemp "${TMPDIR:-/tmp}/reviewd-cargo-install.XXXXXX")"
    reviewd_info "installing $crate $version with cargo install (a few minutes; log: $log)"
    if ! env -u CARGO_TARGET_DIR cargo install --locked --quiet --version "$version" "$crate" "$@" \
        </dev/null >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        reviewd_error "cargo install $crate $version failed (full log: $log)"
        return 1
    fi
    if ! command -v "$bin" >/dev/null 2>&1; then
        reviewd_error "$crate installed, but '$bin' is not on PATH (add ~/.cargo/bin to PATH)"
        return 1
    fi
}

# The one build of a test run: every test binary and the binaries the scripts start
# (target/debug/reviewd and reviewd-runner), with the workspace's test feature set. Cargo
# resolves features per invocation, so `cargo build -p reviewd-server` or `cargo test -p X`
# would compile the shared dependencies again with other features; every script of the suite
# builds with this instead, and the later `cargo test --workspace` finds it all fresh.
reviewd_build_for_tests() {
    reviewd_cmd cargo build --workspace --bins --tests --locked
}

# reviewd_test_executables MANIFEST_DIR: the test executables of one workspace member from
# the build above (without building anything else), one path per line.
reviewd_test_executables() {
    local manifest="$1/Cargo.toml"
    cargo test --workspace --locked --no-run --message-format=json 2>/dev/null |
        grep -F "\"manifest_path\":\"$PWD/$manifest\"" |
        grep -o '"executable":"[^"]*"' | sed 's/^"executable":"//; s/"$//'
}

# reviewd_test_executable NAME: the executable of the test target NAME from the build above
# (`cargo test --test NAME` would select other targets than the whole build and so compile
# dependencies again with another feature set).
reviewd_test_executable() {
    cargo test --workspace --locked --no-run --message-format=json 2>/dev/null |
        grep -F '"kind":["test"]' | grep -F "\"name\":\"$1\"" |
        grep -o '"executable":"[^"]*"' | sed 's/^"executable":"//; s/"$//' | head -n 1
}
