# reviewd developer commands. Every recipe delegates to scripts/ (usable without `just`).
# `just --list` shows them.

set shell := ["bash", "-euo", "pipefail", "-c"]
set positional-arguments

# Show the recipes
default:
    @just --list

# Start the server on local PostgreSQL/Redis (installed and started when missing): scripts/run.sh
run *args:
    ./scripts/run.sh "$@"

# Run the whole test suite against real PostgreSQL and Redis: scripts/test.sh [cargo test args]
test *args:
    ./scripts/test.sh "$@"

# cargo fmt --check, clippy -D warnings, the domain boundary check, cargo machete and the schema check: scripts/lint.sh
lint:
    ./scripts/lint.sh

# Apply pending migrations to DATABASE_URL (local `reviewd` database by default), then exit
migrate:
    ./scripts/run.sh migrate

# Regenerate crates/store-postgres/src/schema.rs with `diesel print-schema` (needs the diesel CLI; explains how to get it)
schema:
    ./scripts/schema.sh

# Run the benchmarks (cargo bench --workspace) on the test services
bench *args:
    ./scripts/bench.sh "$@"

# Fault injection: kill, freeze and restart the server, PostgreSQL and Redis under load (release build; CHAOS_PROFILE=debug, CHAOS_MRS, CHAOS_SCENARIOS): scripts/chaos.sh
chaos *args:
    ./scripts/chaos.sh "$@"
