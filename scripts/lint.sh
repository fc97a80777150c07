#!/usr/bin/env bash
# Static checks:  ./scripts/lint.sh
#   1. cargo fmt --check
#   2. boundary: reviewd-domain must not depend (normal deps) on any infrastructure crate
#   3. cargo clippy on every target, warnings are errors (with rust-version as clippy's MSRV)
#   4. cargo machete: no crate declares a dependency it does not use
#   5. schema: crates/store-postgres/src/schema.rs is exactly what `diesel print-schema` (with
#      diesel.toml's patch) prints for a scratch database migrated from migrations/
#   6. module graph: no import circle between the modules of any target, and the source files
#      within crates/module-graph/bounds.txt (cargo run -p reviewd-module-graph)
#   7. scripts/deploy-check.sh: the Kubernetes manifests and overlays against the API schemas
#   8. scripts/prometheus-check.sh: the alert rules (promtool check and test rules), the dashboard
# Runs all eight and fails if any failed. CARGO_TARGET_DIR defaults to ~/.cache/reviewd/target.
# cargo-machete and the diesel CLI are installed with `cargo install` when missing (the CLI
# links libpq: libpq-dev comes from apt-get, as scripts/services.sh installs packages); the
# schema check uses the local PostgreSQL (started when needed) unless REVIEWD_TEST_DATABASE_URL
# names an admin connection elsewhere.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh

# The tools' versions, pinned so that every machine checks alike; diesel_cli follows the
# diesel version of Cargo.lock.
MACHETE_VERSION=0.9.2
DIESEL_CLI_VERSION=2.3.14

reviewd_cargo_env

# Infrastructure crates the domain crate must never reach (see docs/architecture.md).
forbidden=(diesel diesel-async actix-web octocrab deadpool-redis redis reqwest lettre gitlab tokio utoipa reviewd-runner-protocol)

failed=()

reviewd_info "cargo fmt --check"
if ! reviewd_cmd cargo fmt --all -- --check; then
    reviewd_error "formatting differs: run 'cargo fmt --all'"
    failed+=(fmt)
fi

reviewd_info "boundary check: reviewd-domain dependencies"
if [ "${REVIEWD_DRY_RUN:-0}" = 1 ]; then
    reviewd_cmd cargo tree --locked -p reviewd-domain -e normal --prefix none
elif ! tree="$(cargo tree --locked -p reviewd-domain -e normal --prefix none)"; then
    reviewd_error "cargo tree -p reviewd-domain failed"
    failed+=(boundary)
else
    names="$(printf '%s\n' "$tree" | awk '{print $1}')"
    for name in "${forbidden[@]}"; do
        if printf '%s\n' "$names" | grep -qx -- "$name"; then
            reviewd_error "boundary violated: reviewd-domain depends on '$name'" \
                "(see: cargo tree -p reviewd-domain -e normal -i $name); domain must stay free of infrastructure crates"
            failed+=("boundary:$name")
        fi
    done
fi

reviewd_info "cargo clippy"
if ! reviewd_cmd cargo clippy --workspace --all-targets --locked -- -D warnings; then
    reviewd_error "clippy reported problems"
    failed+=(clippy)
fi

reviewd_info "module graph: no import circle, file sizes within bounds"
if ! reviewd_cmd cargo run --quiet --locked -p reviewd-module-graph; then
    reviewd_error "the module graph has a circle or a file out of bounds (see above)"
    failed+=(module-graph)
fi

reviewd_info "cargo machete (unused dependencies)"
# Reads each crate's sources for its dependencies' names: fast, and without a build. A name it
# cannot see (a dependency used only through another crate's macro) goes in that crate's
# `[package.metadata.cargo-machete] ignored = [...]`, with a comment saying why.
if [ "${REVIEWD_DRY_RUN:-0}" = 1 ]; then
    reviewd_cmd cargo machete
elif ! reviewd_cargo_tool cargo-machete cargo-machete "$MACHETE_VERSION"; then
    failed+=(machete)
elif ! cargo machete --skip-target-dir; then
    reviewd_error "unused dependencies: remove them from the Cargo.toml files named above"
    failed+=(machete)
fi

# Migrates a scratch database with the diesel CLI, prints its schema, and compares.
schema_check() {
    local schema_file=crates/store-postgres/src/schema.rs
    if [ ! -e /usr/include/postgresql/libpq-fe.h ] && ! pkg-config --exists libpq 2>/dev/null; then
        _reviewd_apt_install libpq-dev || return 1
    fi
    reviewd_cargo_tool diesel diesel_cli "$DIESEL_CLI_VERSION" --no-default-features --features postgres ||
        return 1

    local admin_url
    if [ -n "${REVIEWD_TEST_DATABASE_URL:-}" ]; then
        admin_url="$REVIEWD_TEST_DATABASE_URL"
        command -v psql >/dev/null 2>&1 || _reviewd_apt_install postgresql-client || return 1
        reviewd_wait_postgres_url "$admin_url" || return 1
    else
        reviewd_ensure_postgres || return 1
        admin_url="${REVIEWD_LOCAL_PG_URL}/postgres"
    fi
    # A name of its own, so that two checks (or scripts/schema.sh) can run at once.
    local db="reviewd_lint_schema_$$"
    local scratch_url="${admin_url%/*}/$db"
    local generated
    generated="$(mktemp "${TMPDIR:-/tmp}/reviewd-schema.XXXXXX")"
    local empty_config
    empty_config="$(mktemp "${TMPDIR:-/tmp}/reviewd-diesel.XXXXXX")"
    local status=0
    psql -X -q -v ON_ERROR_STOP=1 -d "$admin_url" -c "CREATE DATABASE \"$db\"" >/dev/null || return 1
    # An empty config for `migration run`: with diesel.toml it would rewrite schema.rs itself.
    if ! diesel migration run --config-file "$empty_config" --database-url "$scratch_url" \
        --migration-dir migrations >/dev/null; then
        reviewd_error "the migrations failed on a scratch database"
        status=1
    elif ! diesel print-schema --config-file diesel.toml --database-url "$scratch_url" >"$generated"; then
        reviewd_error "diesel print-schema failed"
        status=1
    elif ! diff -u --label "$schema_file (committed)" --label "$schema_file (diesel print-schema)" \
        "$schema_file" "$generated" >&2; then
        reviewd_error "$schema_file differs from the migrations: run 'just schema' (scripts/schema.sh);" \
            "notes and hand edits belong in diesel.toml's patch_file"
        status=1
    fi
    psql -X -q -d "$admin_url" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
    rm -f "$generated" "$empty_config"
    return "$status"
}

reviewd_info "schema.rs against diesel print-schema"
if [ "${REVIEWD_DRY_RUN:-0}" = 1 ]; then
    reviewd_cmd diesel print-schema --config-file diesel.toml
elif ! schema_check; then
    failed+=(schema)
fi

reviewd_info "Kubernetes manifests and overlays, rendered and validated offline"
if [ "${REVIEWD_DRY_RUN:-0}" != 1 ] && ! bash scripts/deploy-check.sh; then
    failed+=(deploy)
fi

reviewd_info "alert rules and their unit tests, the Grafana dashboard"
if [ "${REVIEWD_DRY_RUN:-0}" != 1 ] && ! bash scripts/prometheus-check.sh; then
    failed+=(monitoring)
fi

if [ "${#failed[@]}" -gt 0 ]; then
    reviewd_error "lint failed: ${failed[*]}"
    exit 1
fi
reviewd_info "lint passed"
