#!/usr/bin/env bash
# Writes crates/server/link/startup.order: the functions the release server runs from its start
# through its first health answer and 15 s of idle with the periodic jobs on (a first start and a
# restart), which the release link places first in `.text` (crates/server/build.rs). With them side
# by side, the start and the idle loop touch a few megabytes of code instead of pages spread over
# the whole binary (see docs/benchmarks.md, "Memory, 2026-11-27: the code the start touches, in one
# place").
#
#   ./scripts/link-order.sh
#
# Run it again after a toolchain or dependency upgrade: the names carry hashes that change with
# them, and the link skips names it no longer finds, so a stale list costs memory, never a build.
# It runs the server under valgrind's callgrind (installed with apt-get when missing) on local
# PostgreSQL and Redis, in a database of its own that it drops at the end.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh

reviewd_cargo_env
if ! command -v valgrind >/dev/null 2>&1; then
    _reviewd_apt_install valgrind
fi
if ! command -v nm >/dev/null 2>&1; then
    _reviewd_apt_install binutils
fi
reviewd_ensure_postgres
reviewd_ensure_redis

if ! command -v curl >/dev/null 2>&1; then
    _reviewd_apt_install curl
fi

db=reviewd_link_order
work="$(mktemp -d)"
server=""
cleanup() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$work"
    reviewd_pg_psql -c "DROP DATABASE IF EXISTS ${db} WITH (FORCE)" >/dev/null || true
    redis-cli -u "${REVIEWD_LOCAL_REDIS_URL}/0" --scan --pattern 'link-order:*' |
        xargs -r redis-cli -u "${REVIEWD_LOCAL_REDIS_URL}/0" del >/dev/null || true
}
trap cleanup EXIT
reviewd_pg_psql -c "DROP DATABASE IF EXISTS ${db} WITH (FORCE)" >/dev/null
reviewd_pg_create_db "$db"

# The order the build uses does not change the names: any release build will do.
cargo build --locked --release -p reviewd-server
bin="${CARGO_TARGET_DIR:-target}/release/reviewd"

port="${REVIEWD_LINK_ORDER_PORT:-39017}"
if _reviewd_port_open 127.0.0.1 "$port"; then
    reviewd_error "port $port is taken: set REVIEWD_LINK_ORDER_PORT to a free one"
    exit 1
fi
# One run: the server under callgrind, healthy, then 15 s idle. The first run starts on an
# empty database and queue (migrations, the consumer group created); the second restarts
# on them, as every later start does (the group already there is an error path of its own).
profile_run() {
    env -i PATH="$PATH" HOME="$HOME" \
        DATABASE_URL="${REVIEWD_LOCAL_PG_URL}/${db}" \
        QUEUE_STORE_URL="${REVIEWD_LOCAL_REDIS_URL}/0" \
        QUEUE_KEY_PREFIX="link-order:" \
        AUTH_SECRET="a-secret-only-for-listing-the-start-functions" \
        ROOT_EMAIL=admin@reviewd.local ROOT_PASSWORD="link-order-password-1" \
        HOSTNAME=127.0.0.1 PORT="$port" APP_URL=http://reviewd.test NODE_ENV=production \
        LOG_DIR="$work/logs" BACKUP_DIR="$work/backups" \
        valgrind --tool=callgrind --demangle=no --dump-instr=no --compress-strings=no \
        --compress-pos=no --callgrind-out-file="$work/callgrind.$1" \
        "$bin" serve >"$work/server.log" 2>&1 &
    server=$!
    reviewd_info "run $1: waiting for the server under callgrind (slow: every instruction is counted)"
    local healthy=""
    for _ in $(seq 1 600); do
        if curl -sf "http://127.0.0.1:${port}/api/health" >/dev/null 2>&1; then
            healthy=1
            break
        fi
        if ! kill -0 "$server" 2>/dev/null; then
            tail -n 20 "$work/server.log" >&2
            reviewd_error "the server stopped before it was healthy"
            exit 1
        fi
        sleep 0.5
    done
    if [ -z "$healthy" ]; then
        reviewd_error "the server was not healthy after 300 s under callgrind"
        exit 1
    fi
    sleep 15
    kill -INT "$server"
    wait "$server" || true
    server=""
}
redis-cli -u "${REVIEWD_LOCAL_REDIS_URL}/0" --scan --pattern 'link-order:*' |
    xargs -r redis-cli -u "${REVIEWD_LOCAL_REDIS_URL}/0" del >/dev/null
profile_run first
profile_run again

# Every function callgrind saw run, kept when the binary defines it, each once, sorted by name: the
# order of callgrind's output follows its own pointers (not the order the functions ran) and
# changed from one run to the next; sorted, a new list differs from the old by what changed.
nm --defined-only "$bin" | awk '$2 ~ /^[tTwW]$/ {print $3}' | sort -u >"$work/defined"
{ grep -h -E '^c?fn=' "$work/callgrind.first" "$work/callgrind.again" || true; } |
    sed -E 's/^c?fn=(\([0-9]+\) )?//' |
    awk 'NR == FNR {defined[$0] = 1; next} ($0 in defined)' "$work/defined" - |
    LC_ALL=C sort -u >"$work/startup.order"
count="$(wc -l <"$work/startup.order")"
if [ "$count" -lt 1000 ]; then
    reviewd_error "only $count functions found: callgrind's output was not what this script expects"
    exit 1
fi
mkdir -p crates/server/link
mv "$work/startup.order" crates/server/link/startup.order
reviewd_info "crates/server/link/startup.order: $count functions"
