#!/usr/bin/env bash
# Seeds an already-migrated database with the lists' bench data (tests/benches/seed.sql).
#
#   scripts/bench-seed.sh DATABASE_URL [--scale F]
#
# Scale 1.0 (the default): 5k projects, 1M reviews, 3M files, 10M comments, 3M AI calls, 1M tasks
# and 1M notifications, about 10 GB with the indexes. Everything the seeded tables held is replaced.
# Prints the row counts and the elapsed time. Refuses to start with less than 15 GB free (scaled
# down with F below 1) on the disk of the database's data directory (of / when that is not local).
set -euo pipefail

# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() {
    echo "usage: $0 DATABASE_URL [--scale F]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
url="$1"
shift
scale=1.0
while [ $# -gt 0 ]; do
    case "$1" in
    --scale)
        [ $# -ge 2 ] || usage
        scale="$2"
        shift 2
        ;;
    *) usage ;;
    esac
done
if ! [[ "$scale" =~ ^[0-9]+(\.[0-9]+)?$ ]] || awk -v s="$scale" 'BEGIN { exit !(s <= 0) }'; then
    reviewd_error "--scale wants a positive number, got '$scale'"
    exit 2
fi

psql_q() { psql "$url" -X -q -v ON_ERROR_STOP=1 "$@"; }

# Free space where the data goes: the data directory when it is on this machine (reading it
# needs a superuser; anything else falls back to /).
data_dir="$(psql_q -Atc 'SHOW data_directory' 2>/dev/null || true)"
[ -n "$data_dir" ] && [ -d "$data_dir" ] || data_dir=/
free_kb="$(df -Pk "$data_dir" | awk 'NR == 2 { print $4 }')"
need_kb="$(awk -v s="$scale" 'BEGIN { f = s < 1 ? s : 1; printf "%d", 15 * 1024 * 1024 * f }')"
if [ "$free_kb" -lt "$need_kb" ]; then
    reviewd_error "$((free_kb / 1024 / 1024)) GB free on $data_dir, the seed at scale $scale needs $((need_kb / 1024 / 1024)) GB"
    exit 1
fi

if [ "$(psql_q -Atc "SELECT to_regclass('reviews') IS NOT NULL")" != t ]; then
    reviewd_error "$(reviewd_redact "$url") has no reviews table: run 'reviewd migrate' first"
    exit 1
fi

reviewd_info "seeding $(reviewd_redact "$url") at scale $scale"
start="$(date +%s.%N)"
# The anchor is the newest review's time: the data is dated from the moment it is loaded, so
# that "today" and "the last 7 days" always hold reviews.
# psql reads a file as it goes: a copy keeps an edit of seed.sql during the load out of it.
sql="$(mktemp "${TMPDIR:-/tmp}/reviewd-seed.XXXXXX.sql")"
trap 'rm -f "$sql"' EXIT
cp "$(reviewd_root)/tests/benches/seed.sql" "$sql"
psql_q -v scale="$scale" -v anchor="$(date -u +%Y-%m-%dT%H:%M:%SZ)" -f "$sql"
end="$(date +%s.%N)"

psql_q -P footer=off -c "
SELECT t AS table, to_char(n, 'FM999,999,999') AS rows,
       pg_size_pretty(pg_total_relation_size(t::regclass)) AS size
FROM (VALUES ('projects', (SELECT count(*) FROM projects)),
             ('reviews', (SELECT count(*) FROM reviews)),
             ('review_rounds', (SELECT count(*) FROM review_rounds)),
             ('review_files', (SELECT count(*) FROM review_files)),
             ('review_comments', (SELECT count(*) FROM review_comments)),
             ('ai_call_logs', (SELECT count(*) FROM ai_call_logs)),
             ('review_tasks', (SELECT count(*) FROM review_tasks)),
             ('notification_history', (SELECT count(*) FROM notification_history))) v (t, n)"
psql_q -Atc "SELECT 'database size: ' || pg_size_pretty(pg_database_size(current_database())) ||
                    ', reviews pages all-visible: ' || relallvisible || '/' || relpages
             FROM pg_class WHERE oid = 'reviews'::regclass"
awk -v s="$start" -v e="$end" 'BEGIN { printf "seeded in %.1f s\n", e - s }'
