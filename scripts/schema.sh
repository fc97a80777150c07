#!/usr/bin/env bash
# Regenerates the Diesel schema (crates/store-postgres/src/schema.rs) from migrations/:
# applies every migration to a scratch database `reviewd_schema`, then `diesel print-schema`.
#
# Needs the diesel CLI, which links libpq (the server itself does not):
#   apt-get install -y libpq-dev && cargo install diesel_cli --no-default-features --features postgres
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh

schema_file=crates/store-postgres/src/schema.rs

if ! command -v diesel >/dev/null 2>&1; then
    cat >&2 <<'MSG'
reviewd: the diesel CLI is not installed, so the schema was not regenerated.
reviewd: `diesel print-schema` reads the tables of a migrated database and writes schema.rs.
reviewd: install it (it links libpq):
reviewd:   apt-get install -y libpq-dev && cargo install diesel_cli --no-default-features --features postgres
reviewd: The build does not need it: the committed schema.rs is used as it is.
MSG
    exit 1
fi

# Local PostgreSQL unless REVIEWD_TEST_DATABASE_URL names an admin connection elsewhere.
reviewd_services test
admin_url="$REVIEWD_TEST_DATABASE_URL"
scratch_url="${admin_url%/*}/reviewd_schema"

psql -X -q -v ON_ERROR_STOP=1 -d "$admin_url" -c 'DROP DATABASE IF EXISTS reviewd_schema WITH (FORCE)'
psql -X -q -v ON_ERROR_STOP=1 -d "$admin_url" -c 'CREATE DATABASE reviewd_schema'
trap 'psql -X -q -d "$admin_url" -c "DROP DATABASE IF EXISTS reviewd_schema WITH (FORCE)" >/dev/null 2>&1 || true' EXIT

diesel migration run --database-url "$scratch_url" --migration-dir migrations
tmp="$(mktemp)"
diesel print-schema --database-url "$scratch_url" >"$tmp"
cat "$tmp" >"$schema_file"
rm -f "$tmp"
reviewd_info "wrote $schema_file"
