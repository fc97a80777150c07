#!/usr/bin/env bash
# Fuzzes the API against its own document:  ./scripts/schemathesis.sh [extra schemathesis args]
#
# Starts a real `reviewd` (debug build) on a fresh database and Redis prefix, logs in as the root
# user, makes an admin API key, validates /api/openapi.json as OpenAPI 3.1, then runs Schemathesis
# over every operation with every check, a fixed seed and REVIEWD_ST_EXAMPLES examples per operation
# (default 40). Schemathesis and the validator come from PyPI into a virtual environment
# (REVIEWD_ST_VENV, default ~/.cache/reviewd/st-venv). The server's log is kept in
# target/schemathesis/server.log; Schemathesis's report (JUnit and a reproduction file) beside it.
# Afterwards the server's /api/metrics, with every route answered, goes through
# scripts/prometheus-check.sh (promtool check metrics and the families the rules use).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh

reviewd_services test
reviewd_cargo_env

venv="${REVIEWD_ST_VENV:-$HOME/.cache/reviewd/st-venv}"
if [ "${REVIEWD_DRY_RUN:-0}" = 1 ]; then
    reviewd_build_for_tests
    exit 0
fi
if [ ! -x "$venv/bin/schemathesis" ] || [ ! -x "$venv/bin/openapi-spec-validator" ]; then
    reviewd_info "installing Schemathesis into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "schemathesis==4.32.5" "openapi-spec-validator==0.9.0"
fi

# The test run's own build (fresh after scripts/test.sh's): building `-p reviewd-server` alone
# would compile its dependencies again with another feature set.
reviewd_build_for_tests

out="$CARGO_TARGET_DIR/schemathesis"
rm -rf "$out"
mkdir -p "$out"
db="reviewd_schemathesis"
reviewd_pg_psql -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null
reviewd_pg_create_db "$db"
port="${REVIEWD_ST_PORT:-18089}"
base="http://127.0.0.1:$port"
root_password="schemathesis-root-$(date +%s)-$RANDOM"

DATABASE_URL="${REVIEWD_TEST_DATABASE_URL%/*}/$db" \
    QUEUE_STORE_URL="$REVIEWD_TEST_REDIS_URL" \
    QUEUE_KEY_PREFIX="reviewd-st-$$" \
    AUTH_SECRET="schemathesis-auth-secret-0123456789abcdef" \
    ROOT_EMAIL="root@reviewd.test" ROOT_PASSWORD="$root_password" \
    HOSTNAME=127.0.0.1 PORT="$port" APP_URL="$base" NODE_ENV=test \
    HTTP_WORKERS=2 OUTBOUND_TIMEOUT_SECS=2 OUTBOUND_RETRY_BASE_MS=10 \
    REVIEW_WORKERS_ENABLED=false PERIODIC_JOBS_ENABLED=false \
    RESET_DB_KEY="schemathesis-reset-key-$RANDOM$RANDOM$RANDOM" \
    LOG_DIR="$out/logs" BACKUP_DIR="$out/backups" RUST_LOG=warn \
    "$CARGO_TARGET_DIR/debug/reviewd" serve >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT

for _ in $(seq 1 100); do
    curl -fsS "$base/api/health" >/dev/null 2>&1 && break
    kill -0 "$server" 2>/dev/null || { cat "$out/server.log" >&2; reviewd_error "reviewd did not start"; exit 1; }
    sleep 0.2
done

reviewd_pg_psql -d "$db" -v ON_ERROR_STOP=1 -q -f tests/schemathesis/seed.sql
curl -fsS "$base/api/openapi.json" -o "$out/openapi.json"
"$venv/bin/openapi-spec-validator" "$out/openapi.json"

jar="$out/cookies"
curl -fsS -c "$jar" -H 'content-type: application/json' -H "origin: $base" \
    -d "{\"email\":\"root@reviewd.test\",\"password\":\"$root_password\"}" \
    "$base/api/auth/login" >/dev/null
key="$(curl -fsS -b "$jar" -H 'content-type: application/json' -H "origin: $base" \
    -d '{"name":"schemathesis"}' "$base/api/api-keys" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["apiKey"]["key"])')"

status=0
"$venv/bin/schemathesis" --config-file tests/schemathesis/schemathesis.toml \
    run "$base/api/openapi.json" \
    --header "Authorization: Bearer $key" \
    --seed "${REVIEWD_ST_SEED:-20261123}" \
    --max-examples "${REVIEWD_ST_EXAMPLES:-40}" \
    --workers 2 \
    --request-timeout 20 \
    --generation-database none \
    --report junit,pytest --report-dir "$out/report" \
    --no-color "$@" || status=$?
# Every route has now been answered: the exposition must satisfy Prometheus's own checker.
if curl -fsS "$base/api/metrics" -o "$out/metrics.txt"; then
    bash scripts/prometheus-check.sh "$out/metrics.txt" || status=1
else
    reviewd_error "GET /api/metrics failed after the run"
    status=1
fi
if [ "$status" != 0 ]; then
    reviewd_error "Schemathesis found failures; the server log is $out/server.log"
    grep -E '"level":"ERROR"|ERROR' "$out/server.log" | tail -n 20 >&2 || true
fi
exit "$status"
