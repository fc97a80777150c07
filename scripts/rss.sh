#!/usr/bin/env bash
# Idle memory of a reviewd binary:  ./scripts/rss.sh [path/to/reviewd ...]
#
# For each binary (default: the release build in the cargo target directory): starts
# `reviewd serve` on a fresh database, waits for /api/health, lets it idle 5 s and reads its
# anonymous (private) memory (RssAnon: what it costs the machine) and its whole resident set
# (VmRSS, which adds the binary's pages mapped from the page cache); then logs in, fetches every
# dashboard page 20 times, idles 5 s and reads both again. Prints one line per binary. Uses the test services (scripts/services.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh
reviewd_services test
reviewd_cargo_env

binaries=("$@")
[ "${#binaries[@]}" -gt 0 ] || binaries=("${CARGO_TARGET_DIR}/release/reviewd")

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
anon_kb() { awk '/^RssAnon:/ { print $2 }' "/proc/$1/status"; }

measure() {
    local bin="$1" db="reviewd_rss_$$_$RANDOM" port=$((20000 + RANDOM % 20000))
    local scratch
    scratch="$(mktemp -d)"
    reviewd_pg_psql -c "CREATE DATABASE $db" >/dev/null
    DATABASE_URL="${REVIEWD_LOCAL_PG_URL}/$db" QUEUE_STORE_URL="$REVIEWD_TEST_REDIS_URL" \
        QUEUE_KEY_PREFIX="reviewd-rss-$$:" AUTH_SECRET="an-auth-secret-for-measuring-rss-0123456789" \
        ROOT_EMAIL=rss@reviewd.local ROOT_PASSWORD=rss-password-1 HOSTNAME=127.0.0.1 PORT="$port" \
        APP_URL="http://127.0.0.1:$port" LOG_DIR="$scratch/logs" BACKUP_DIR="$scratch/backups" \
        RUST_LOG=warn "$bin" serve >"$scratch/out.log" 2>&1 &
    local pid=$!
    local base="http://127.0.0.1:$port"
    for _ in $(seq 1 100); do
        curl -fsS "$base/api/health" >/dev/null 2>&1 && break
        sleep 0.1
    done
    sleep 5
    local idle after idle_anon after_anon
    idle="$(rss_kb "$pid")"
    idle_anon="$(anon_kb "$pid")"
    local jar="$scratch/cookies"
    if curl -fsS -c "$jar" -H 'Content-Type: application/json' \
        -d '{"email":"rss@reviewd.local","password":"rss-password-1"}' "$base/api/auth/login" >/dev/null; then
        for _ in $(seq 1 20); do
            for page in / /reviews /projects /platforms /manual /catalog /runners /notifications /health /settings; do
                curl -fsS -b "$jar" -o /dev/null "$base$page" || true
            done
        done
    fi
    sleep 5
    after="$(rss_kb "$pid")"
    after_anon="$(anon_kb "$pid")"
    kill -TERM "$pid"
    wait "$pid" || true
    reviewd_pg_psql -c "DROP DATABASE $db WITH (FORCE)" >/dev/null
    rm -rf "$scratch"
    printf '%s: idle %d KB anonymous (%d KB resident); after 200 page views and 5 s idle %d KB anonymous (%d KB resident)\n' \
        "$bin" "$idle_anon" "$idle" "$after_anon" "$after"
}

for bin in "${binaries[@]}"; do
    measure "$bin"
done
