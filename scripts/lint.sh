#!/usr/bin/env bash
# Static checks:  ./scripts/lint.sh
#   1. cargo fmt --check
#   2. boundary: reviewd-domain must not depend (normal deps) on any infrastructure crate
#   3. cargo clippy on every target, warnings are errors
# Runs all three and fails if any failed. CARGO_TARGET_DIR defaults to ~/.cache/reviewd/target.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/common.sh
source scripts/common.sh

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

if [ "${#failed[@]}" -gt 0 ]; then
    reviewd_error "lint failed: ${failed[*]}"
    exit 1
fi
reviewd_info "lint passed"
