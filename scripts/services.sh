#!/usr/bin/env bash
# Local PostgreSQL and Redis for development and tests.
#
#   scripts/services.sh [test|run]     ensure the services, then exit
#   source scripts/services.sh          define the functions below (reviewd_services MODE exports the URLs)
#
# Mode `test` (default): PostgreSQL unless REVIEWD_TEST_DATABASE_URL is set, Redis unless
#   REVIEWD_TEST_REDIS_URL is set; exports both URLs (local defaults when unset); Chromium and
#   chromedriver for the browser tests (REVIEWD_CHROMEDRIVER, REVIEWD_CHROMIUM).
# Mode `run`: PostgreSQL and the `reviewd` database unless DATABASE_URL is set, Redis unless
#   QUEUE_STORE_URL is set; exports both URLs.
#
# A service that is missing is installed with apt-get (as root, or through passwordless sudo) and
# started without systemd. A URL given by the environment is only waited for (when the client tool is
# there), never installed or started. Quiet when everything is already up.
# REVIEWD_SERVICE_WAIT_SECS (default 30) bounds each wait.

# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

REVIEWD_PG_HOST=127.0.0.1
REVIEWD_PG_PORT=5432
REVIEWD_REDIS_HOST=127.0.0.1
REVIEWD_REDIS_PORT=6379
# Always log in with a password: trust auth ignores it, Debian's default scram auth for 127.0.0.1 needs it.
REVIEWD_LOCAL_PG_URL="postgres://postgres:postgres@${REVIEWD_PG_HOST}:${REVIEWD_PG_PORT}"
REVIEWD_LOCAL_REDIS_URL="redis://${REVIEWD_REDIS_HOST}:${REVIEWD_REDIS_PORT}"

# Runs a command as root: directly, or through sudo when that needs no password.
_reviewd_as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo -n "$@"
    else
        reviewd_error "'$*' needs root (run as root, or allow passwordless sudo)"
        return 1
    fi
}

_reviewd_apt_updated=0
_reviewd_apt_install() {
    if ! command -v apt-get >/dev/null 2>&1; then
        reviewd_error "apt-get not found: install $* yourself, or set the URL variables to running services"
        return 1
    fi
    local log
    log="$(mktemp "${TMPDIR:-/tmp}/reviewd-apt.XXXXXX")"
    reviewd_info "installing $* with apt-get (log: $log)"
    if [ "$_reviewd_apt_updated" = 0 ]; then
        if ! _reviewd_as_root env DEBIAN_FRONTEND=noninteractive apt-get -q update >>"$log" 2>&1; then
            tail -n 20 "$log" >&2
            reviewd_error "apt-get update failed (full log: $log)"
            return 1
        fi
        _reviewd_apt_updated=1
    fi
    if ! _reviewd_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" \
        </dev/null >>"$log" 2>&1; then
        tail -n 20 "$log" >&2
        reviewd_error "apt-get install $* failed (full log: $log)"
        return 1
    fi
}

# Calls "$@" until it succeeds, at most REVIEWD_SERVICE_WAIT_SECS seconds.
_reviewd_wait() {
    local what="$1"
    shift
    local limit="${REVIEWD_SERVICE_WAIT_SECS:-30}"
    local deadline=$((SECONDS + limit))
    until "$@"; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            reviewd_error "$what did not accept connections within ${limit}s"
            return 1
        fi
        sleep 0.5
    done
}

_reviewd_port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# ---------------------------------------------------------------- PostgreSQL

reviewd_pg_ready() {
    pg_isready -q -t 2 -h "$REVIEWD_PG_HOST" -p "$REVIEWD_PG_PORT" >/dev/null 2>&1
}

# psql against the local server as postgres/postgres; extra arguments are passed on.
reviewd_pg_psql() {
    PGPASSWORD=postgres PGCONNECT_TIMEOUT=5 psql -X -q -v ON_ERROR_STOP=1 \
        -h "$REVIEWD_PG_HOST" -p "$REVIEWD_PG_PORT" -U postgres -d postgres "$@"
}

_reviewd_pg_start() {
    local ver=""
    local d
    for d in /etc/postgresql/*/main; do
        if [ -d "$d" ]; then
            ver="$(basename "$(dirname "$d")")"
            break
        fi
    done
    if [ -z "$ver" ]; then
        ver="$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort -V | tail -n 1)"
        if [ -z "$ver" ]; then
            reviewd_error "no PostgreSQL server found under /usr/lib/postgresql"
            return 1
        fi
        reviewd_info "creating PostgreSQL $ver cluster 'main'"
        _reviewd_as_root pg_createcluster "$ver" main >/dev/null || return 1
    fi
    reviewd_info "starting PostgreSQL $ver/main"
    # May report that the cluster is already running or starting; the wait below is what counts.
    _reviewd_as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
}

# Makes `postgres:postgres@127.0.0.1` log in, whatever pg_hba says (trust ignores the password).
_reviewd_pg_password() {
    if reviewd_pg_psql -Atc 'SELECT 1' >/dev/null 2>&1; then
        return 0
    fi
    if ! id postgres >/dev/null 2>&1; then
        reviewd_error "cannot log in to PostgreSQL at ${REVIEWD_PG_HOST}:${REVIEWD_PG_PORT} as postgres/postgres," \
            "and there is no local 'postgres' user to set that password; set the URL variable instead"
        return 1
    fi
    reviewd_info "setting the password of PostgreSQL role postgres (for postgres:postgres@${REVIEWD_PG_HOST} logins)"
    # cd /: the postgres user may not be allowed into the current directory.
    (cd / && _reviewd_as_root runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -p "$REVIEWD_PG_PORT" \
        -c "ALTER ROLE postgres PASSWORD 'postgres'") >/dev/null || return 1
    if ! reviewd_pg_psql -Atc 'SELECT 1' >/dev/null; then
        reviewd_error "still cannot log in as postgres/postgres at ${REVIEWD_PG_HOST}:${REVIEWD_PG_PORT} (check pg_hba.conf)"
        return 1
    fi
}

# Installs, starts and waits for the local PostgreSQL; ensures the postgres/postgres password login.
reviewd_ensure_postgres() {
    if ! command -v pg_isready >/dev/null 2>&1 || ! command -v psql >/dev/null 2>&1; then
        if _reviewd_port_open "$REVIEWD_PG_HOST" "$REVIEWD_PG_PORT"; then
            _reviewd_apt_install postgresql-client || return 1 # a server is there; only the tools are missing
        else
            _reviewd_apt_install postgresql || return 1
        fi
    fi
    if ! reviewd_pg_ready; then
        if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
            _reviewd_apt_install postgresql || return 1
        fi
        reviewd_pg_ready || _reviewd_pg_start || return 1
        _reviewd_wait "PostgreSQL on ${REVIEWD_PG_HOST}:${REVIEWD_PG_PORT} (see pg_lsclusters and /var/log/postgresql)" \
            reviewd_pg_ready || return 1
    fi
    _reviewd_pg_password
}

# Creates database $1 on the local server when it does not exist.
reviewd_pg_create_db() {
    local db="$1"
    local found
    found="$(reviewd_pg_psql -Atc "SELECT 1 FROM pg_database WHERE datname = '${db}'")" || return 1
    if [ "$found" != 1 ]; then
        reviewd_info "creating database $db"
        reviewd_pg_psql -c "CREATE DATABASE \"${db}\"" >/dev/null || return 1
    fi
}

# Waits for a PostgreSQL given by URL (skipped when pg_isready is not installed).
reviewd_wait_postgres_url() {
    command -v pg_isready >/dev/null 2>&1 || return 0
    _reviewd_wait "PostgreSQL at $(reviewd_redact "$1")" pg_isready -q -t 2 -d "$1"
}

# ---------------------------------------------------------------- Redis

reviewd_redis_ready() {
    [ "$(redis-cli -h "$REVIEWD_REDIS_HOST" -p "$REVIEWD_REDIS_PORT" ping 2>/dev/null)" = PONG ]
}

# Installs, starts and waits for the local Redis. Started by hand it keeps nothing on disk (dev/test only).
reviewd_ensure_redis() {
    if command -v redis-cli >/dev/null 2>&1 && reviewd_redis_ready; then
        return 0
    fi
    if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
        _reviewd_apt_install redis-server redis-tools || return 1
    fi
    if ! reviewd_redis_ready; then
        reviewd_info "starting Redis on ${REVIEWD_REDIS_HOST}:${REVIEWD_REDIS_PORT}"
        (cd / && redis-server --daemonize yes --bind "$REVIEWD_REDIS_HOST" --port "$REVIEWD_REDIS_PORT" \
            --save "" --appendonly no >/dev/null) || return 1
        _reviewd_wait "Redis on ${REVIEWD_REDIS_HOST}:${REVIEWD_REDIS_PORT} (is the port taken by something else?)" \
            reviewd_redis_ready || return 1
    fi
}

_reviewd_redis_url_ready() { [ "$(redis-cli -u "$1" ping 2>/dev/null)" = PONG ]; }

# Waits for a Redis given by URL (skipped when redis-cli is missing or the URL is not redis://).
reviewd_wait_redis_url() {
    command -v redis-cli >/dev/null 2>&1 || return 0
    case "$1" in redis://*) ;; *) return 0 ;; esac
    _reviewd_wait "Redis at $(reviewd_redact "$1")" _reviewd_redis_url_ready "$1"
}

# ---------------------------------------------------------------- browser

# Headless Chromium and its WebDriver for the dashboard's browser tests: Debian's
# chromium and chromium-driver, installed when missing. Exports REVIEWD_CHROMEDRIVER
# and REVIEWD_CHROMIUM unless they are already set.
reviewd_ensure_browser() {
    if [ -z "${REVIEWD_CHROMEDRIVER:-}" ]; then
        if ! command -v chromedriver >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1; then
            _reviewd_apt_install chromium chromium-driver || return 1
        fi
        REVIEWD_CHROMEDRIVER="$(command -v chromedriver)"
        export REVIEWD_CHROMEDRIVER
    fi
    if [ -z "${REVIEWD_CHROMIUM:-}" ] && command -v chromium >/dev/null 2>&1; then
        REVIEWD_CHROMIUM="$(command -v chromium)"
        export REVIEWD_CHROMIUM
    fi
}

# The analyzers the runner's tests run for real, installed when missing: ruff and semgrep
# from PyPI (into their own virtual environment, REVIEWD_TOOLS_VENV, default
# ~/.cache/reviewd/tools-venv) and the shellcheck package from Debian. Exports REVIEWD_ANALYZERS_PATH (the directories that
# hold them) unless it is already set.
REVIEWD_RUFF_VERSION="0.17.6"
REVIEWD_SEMGREP_VERSION="1.185.0"
reviewd_ensure_analyzers() {
    if [ -n "${REVIEWD_ANALYZERS_PATH:-}" ]; then
        return 0
    fi
    if ! command -v shellcheck >/dev/null 2>&1; then
        _reviewd_apt_install shellcheck || return 1
    fi
    local venv="${REVIEWD_TOOLS_VENV:-$HOME/.cache/reviewd/tools-venv}"
    if ! "$venv/bin/ruff" --version 2>/dev/null | grep -qF "$REVIEWD_RUFF_VERSION" ||
        ! "$venv/bin/semgrep" --version 2>/dev/null | grep -qF "$REVIEWD_SEMGREP_VERSION"; then
        reviewd_info "installing ruff $REVIEWD_RUFF_VERSION and semgrep $REVIEWD_SEMGREP_VERSION into $venv"
        python3 -m venv "$venv" || return 1
        "$venv/bin/pip" install --quiet --disable-pip-version-check \
            "ruff==$REVIEWD_RUFF_VERSION" "semgrep==$REVIEWD_SEMGREP_VERSION" || return 1
    fi
    REVIEWD_ANALYZERS_PATH="$venv/bin:$(dirname "$(command -v shellcheck)")"
    export REVIEWD_ANALYZERS_PATH
}

# ---------------------------------------------------------------- modes

# reviewd_services test|run: ensures what the mode needs and exports its URLs.
reviewd_services() {
    local mode="${1:-test}"
    case "$mode" in
    test)
        if [ -n "${REVIEWD_TEST_DATABASE_URL:-}" ]; then
            reviewd_wait_postgres_url "$REVIEWD_TEST_DATABASE_URL" || return 1
        else
            reviewd_ensure_postgres || return 1
            export REVIEWD_TEST_DATABASE_URL="${REVIEWD_LOCAL_PG_URL}/postgres"
        fi
        if [ -n "${REVIEWD_TEST_REDIS_URL:-}" ]; then
            reviewd_wait_redis_url "$REVIEWD_TEST_REDIS_URL" || return 1
        else
            reviewd_ensure_redis || return 1
            export REVIEWD_TEST_REDIS_URL="$REVIEWD_LOCAL_REDIS_URL"
        fi
        reviewd_ensure_browser || return 1
        reviewd_ensure_analyzers || return 1
        ;;
    run)
        if [ -n "${DATABASE_URL:-}" ]; then
            reviewd_wait_postgres_url "$DATABASE_URL" || return 1
        else
            reviewd_ensure_postgres || return 1
            reviewd_pg_create_db reviewd || return 1
            export DATABASE_URL="${REVIEWD_LOCAL_PG_URL}/reviewd"
        fi
        if [ -n "${QUEUE_STORE_URL:-}" ]; then
            reviewd_wait_redis_url "$QUEUE_STORE_URL" || return 1
        else
            reviewd_ensure_redis || return 1
            export QUEUE_STORE_URL="${REVIEWD_LOCAL_REDIS_URL}/0"
        fi
        ;;
    *)
        reviewd_error "unknown mode '$mode' (expected test or run)"
        return 2
        ;;
    esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    reviewd_services "$@"
fi
