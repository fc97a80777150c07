#!/usr/bin/env bash
# Benchmarks:  ./scripts/bench.sh [extra cargo bench args]   (also `just bench`)
#
# Builds the release server, makes sure PostgreSQL's server binaries, pgbench, redis-server and
# redis-benchmark are installed (apt-get when missing), then runs the one suite that prints the
# table (tests/benches/suite): it starts a PostgreSQL cluster and a Redis server of its own on
# free ports (so it runs as root: PostgreSQL itself runs through `runuser -u postgres`).
#
# Environment: BENCH_ONLY (comma list of sections), BENCH_SECS (20), BENCH_OUT (a file for the
# Markdown table), BENCH_KEEP=1, REVIEWD_BIN (skip the server build).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh

reviewd_cargo_env

if [ "$(id -u)" != 0 ]; then
    reviewd_error "the benchmarks run a PostgreSQL cluster of their own through runuser: run them as root"
    exit 1
fi
if ! compgen -G '/usr/lib/postgresql/*/bin/pgbench' >/dev/null || ! command -v psql >/dev/null 2>&1; then
    _reviewd_apt_install postgresql postgresql-contrib
fi
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-benchmark >/dev/null 2>&1; then
    _reviewd_apt_install redis-server redis-tools
fi

if [ -z "${REVIEWD_BIN:-}" ]; then
    reviewd_cmd cargo build --locked --release -p reviewd-server
    REVIEWD_BIN="${CARGO_TARGET_DIR:-target}/release/reviewd"
    export REVIEWD_BIN
fi

reviewd_cmd exec cargo bench --locked -p reviewd-tests --bench suite "$@"
