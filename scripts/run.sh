#!/usr/bin/env bash
# Runs the reviewd server for development:  ./scripts/run.sh [serve|migrate] [ARGS...]   (default: serve)
#
# - DATABASE_URL unset: local PostgreSQL is installed/started as needed, database `reviewd` created,
#   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/reviewd.
# - QUEUE_STORE_URL unset: local Redis, QUEUE_STORE_URL=redis://127.0.0.1:6379/0.
# - AUTH_SECRET, ROOT_EMAIL, ROOT_PASSWORD unset: taken from .reviewd/dev.env, generated there on first
#   use (the file is gitignored, mode 600). Variables set in the environment always win.
# - Builds and starts `reviewd` with `cargo run --release` (CARGO_TARGET_DIR defaults to
#   ~/.cache/reviewd/target). REVIEWD_DRY_RUN=1 does everything but the build and start.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh

subcommand="${1:-serve}"
if [ "$#" -gt 0 ]; then
    shift
fi

reviewd_services run

dev_dir=.reviewd
dev_env="$dev_dir/dev.env"

# Reads KEY from the dev env file (no sourcing: the file is data, not code).
dev_env_get() {
    [ -f "$dev_env" ] || return 0
    sed -n "s/^$1=//p" "$dev_env" | tail -n 1
}

dev_env_set() {
    mkdir -p "$dev_dir"
    chmod 700 "$dev_dir"
    local tmp
    tmp="$(umask 077 && mktemp "$dev_dir/dev.env.XXXXXX")"
    if [ -f "$dev_env" ]; then
        grep -v "^$1=" "$dev_env" >"$tmp" || true
    else
        {
            echo "# Development settings written by scripts/run.sh; read only when the variable is unset."
            echo "# Keep AUTH_SECRET: it signs sessions and, without ENCRYPTION_KEY, encrypts stored secrets."
            echo "# ROOT_PASSWORD is used when the root user is first created; changing it here later has no effect."
        } >"$tmp"
    fi
    printf '%s=%s\n' "$1" "$2" >>"$tmp"
    chmod 600 "$tmp"
    mv "$tmp" "$dev_env"
}

random_token() { head -c "$1" /dev/urandom | base64 | tr -d '/+=\n'; }

if [ -z "${AUTH_SECRET:-}" ]; then
    AUTH_SECRET="$(dev_env_get AUTH_SECRET)"
    if [ -z "$AUTH_SECRET" ]; then
        AUTH_SECRET="$(random_token 48)"
        dev_env_set AUTH_SECRET "$AUTH_SECRET"
        reviewd_info "generated AUTH_SECRET in $dev_env"
    fi
    export AUTH_SECRET
fi

if [ -z "${ROOT_EMAIL:-}" ]; then
    ROOT_EMAIL="$(dev_env_get ROOT_EMAIL)"
    if [ -z "$ROOT_EMAIL" ]; then
        ROOT_EMAIL=admin@reviewd.local
        dev_env_set ROOT_EMAIL "$ROOT_EMAIL"
    fi
    export ROOT_EMAIL
fi

password_note="the ROOT_PASSWORD you set"
if [ -z "${ROOT_PASSWORD:-}" ]; then
    ROOT_PASSWORD="$(dev_env_get ROOT_PASSWORD)"
    if [ -z "$ROOT_PASSWORD" ]; then
        ROOT_PASSWORD="$(random_token 18)"
        dev_env_set ROOT_PASSWORD "$ROOT_PASSWORD"
        password_note="$ROOT_PASSWORD  (generated now, stored as ROOT_PASSWORD in $dev_env)"
    else
        password_note="stored as ROOT_PASSWORD in $dev_env"
    fi
    export ROOT_PASSWORD
fi

reviewd_cargo_env

if [ "$subcommand" = serve ]; then
    # bash sets HOSTNAME for itself; only an exported one reaches the server.
    host="$(printenv HOSTNAME || true)"
    case "$host" in "" | 0.0.0.0 | "::" | "[::]") host=localhost ;; esac
    cat <<EOF
reviewd: dashboard: http://${host}:${PORT:-3000}/  (log in there; the API is under /api)
reviewd:   email:    ${ROOT_EMAIL}
reviewd:   password: ${password_note}
reviewd:   (the root user is created on the first start only)
reviewd: building and starting (cargo run --release); the first build takes several minutes
EOF
fi

reviewd_cmd exec cargo run --release -p reviewd-server --bin reviewd -- "$subcommand" "$@"
