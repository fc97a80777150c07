#!/usr/bin/env bash
# Benchmarks:  ./scripts/bench.sh [extra cargo bench args]
# Same services and URLs as the tests (benchmarks may use the database), then `cargo bench --workspace`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh

reviewd_services test
reviewd_cargo_env

reviewd_cmd exec cargo bench --workspace --locked "$@"
