#!/usr/bin/env bash
# Runs the whole test suite:  ./scripts/test.sh [extra cargo test args]
#
# Ensures a local PostgreSQL and Redis (installed and started when missing) unless
# REVIEWD_TEST_DATABASE_URL / REVIEWD_TEST_REDIS_URL point elsewhere, exports both, then runs
# `cargo test --workspace --locked`. Each test creates and drops its own database. Then
# scripts/schemathesis.sh fuzzes the real server against its OpenAPI document (skipped when
# extra cargo test args select a subset, or with REVIEWD_SCHEMATHESIS=0).
# Then the fault-injection suite in its short form (scripts/chaos.sh on the debug build, every
# scenario with CHAOS_MRS=4; skipped with REVIEWD_CHAOS=0 or when not root, which it needs to run
# PostgreSQL clusters of its own).
# Everything is compiled once, first (scripts/common.sh's reviewd_build_for_tests): the test
# binaries and the two binaries the later steps start share one feature set. Before any service
# is needed, the domain's test binaries run alone with the database and Redis URLs pointing at a
# closed port: the core is tested on its in-memory adapters only.
# CARGO_TARGET_DIR defaults to ~/.cache/reviewd/target. REVIEWD_DRY_RUN=1 skips the cargo run.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh

reviewd_cargo_env
if [ "$#" = 0 ]; then
    reviewd_build_for_tests
    # The domain's own test binaries, from that build: `cargo test -p reviewd-domain` would
    # resolve other features and compile the dependencies a second time.
    if [ "${REVIEWD_DRY_RUN:-0}" != 1 ]; then
        domain_tests="$(reviewd_test_executables crates/domain)"
        [ -n "$domain_tests" ] || { reviewd_error "no test executable found for crates/domain"; exit 1; }
        while IFS= read -r test_bin; do
            (cd crates/domain && REVIEWD_TEST_DATABASE_URL=postgres://nobody@127.0.0.1:9/none \
                REVIEWD_TEST_REDIS_URL=redis://127.0.0.1:9 "$test_bin" -q)
        done <<<"$domain_tests"
    fi
fi
reviewd_services test

reviewd_cmd cargo test --workspace --locked "$@"
if [ "$#" = 0 ] && [ "${REVIEWD_SCHEMATHESIS:-1}" != 0 ]; then
    bash scripts/schemathesis.sh
fi
if [ "$#" = 0 ] && [ "${REVIEWD_CHAOS:-1}" != 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        CHAOS_PROFILE=debug CHAOS_MRS="${CHAOS_MRS:-4}" bash scripts/chaos.sh
    else
        reviewd_info "skipping the fault-injection suite: it runs PostgreSQL clusters of its own and needs root"
    fi
fi
