#!/usr/bin/env bash
# The fault-injection suite:  ./scripts/chaos.sh [scenario names...]
#
# Builds the server and the runner (release by default; CHAOS_PROFILE=debug for the debug build),
# exports REVIEWD_BIN and RUNNER_BIN, makes sure PostgreSQL's server binaries and redis-server are installed (apt-get
# when missing), then runs the test build's `chaos` executable with `--ignored`. Each scenario
# starts its own PostgreSQL cluster and Redis server on free ports (never the shared ones on
# 5432/6379), so it must run as root (PostgreSQL itself runs through `runuser -u postgres`).
#
# Environment: CHAOS_MRS (10), CHAOS_SCENARIOS (comma list, default all: kill_mid_review,
# kill_mid_posting, redis_restarted_empty, redis_restarted_persistent, postgres_killed_3s,
# replica_killed, replica_frozen, runner_killed, postgres_down_30s, kill_mid_answer,
# redis_lost_mid_answer, webhook_flood),
# CHAOS_FLOOD_MRS (200: the MRs webhook_flood sends webhooks for), CHAOS_DEADLINE_SECS (120),
# CHAOS_INCLUDE_IGNORED=1,
# REVIEWD_BIN and RUNNER_BIN (skip the build).
# CARGO_TARGET_DIR defaults to ~/.cache/reviewd/target. REVIEWD_DRY_RUN=1 skips the cargo runs.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh

reviewd_cargo_env

if [ "$(id -u)" != 0 ]; then
    reviewd_error "the chaos suite runs PostgreSQL clusters of its own through runuser: run it as root"
    exit 1
fi
if ! compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || ! command -v pg_isready >/dev/null 2>&1 \
    || ! command -v psql >/dev/null 2>&1; then
    _reviewd_apt_install postgresql
fi
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
    _reviewd_apt_install redis-server redis-tools
fi

profile="${CHAOS_PROFILE:-release}"
if [ "$profile" != release ] && [ "$profile" != debug ]; then
    reviewd_error "CHAOS_PROFILE must be release or debug, not '$profile'"
    exit 2
fi
if [ -z "${REVIEWD_BIN:-}" ] || [ -z "${RUNNER_BIN:-}" ]; then
    if [ "$profile" = release ]; then
        reviewd_cmd cargo build --locked -p reviewd-server -p reviewd-runner --release
    else
        # The test run's own build: `-p reviewd-server -p reviewd-runner` alone would compile
        # their dependencies again with another feature set.
        reviewd_build_for_tests
    fi
    export REVIEWD_BIN="${REVIEWD_BIN:-${CARGO_TARGET_DIR:-target}/$profile/reviewd}"
    export RUNNER_BIN="${RUNNER_BIN:-${CARGO_TARGET_DIR:-target}/$profile/reviewd-runner}"
fi

# The suite itself (the driver, not what is measured) is the debug test build's own executable:
# a release build of its test dependencies would take minutes and change nothing it counts, and
# `cargo test --test chaos` would build its dependencies again with another feature set.
reviewd_build_for_tests
chaos_bin=chaos
if [ "${REVIEWD_DRY_RUN:-0}" != 1 ]; then
    chaos_bin="$(reviewd_test_executable chaos)"
fi
if [ -z "$chaos_bin" ]; then
    reviewd_error "the chaos suite's executable was not found in the test build"
    exit 1
fi
reviewd_cmd exec "$chaos_bin" --ignored --nocapture "$@"
