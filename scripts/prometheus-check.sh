#!/usr/bin/env bash
# Checks the monitoring files:  scripts/prometheus-check.sh [SCRAPE_FILE]
#   1. promtool check rules deploy/prometheus/alerts.yml
#   2. promtool test rules deploy/prometheus/alerts_test.yml (the alerts' unit tests)
#   3. deploy/grafana/reviewd.json is valid JSON, and its queries are valid PromQL
#   4. every metric name that alerts.yml and the dashboard use is one of the families below (or a
#      series alerts.yml records itself, or Prometheus's own `up`)
#   5. with SCRAPE_FILE (a saved `GET /api/metrics`): `promtool check metrics` on it prints nothing,
#      and every family in it is one of the families below, with its type; families not in the
#      scrape are listed (a series appears with its first value) without failing.
# promtool comes from Debian's `prometheus` package, installed with apt-get when missing (see
# scripts/services.sh) without starting the Prometheus service it brings, which is also disabled.
# Needs python3 with PyYAML (Debian's python3-yaml, installed when missing).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh

RULES=deploy/prometheus/alerts.yml
RULE_TESTS=deploy/prometheus/alerts_test.yml
DASHBOARD=deploy/grafana/reviewd.json

# The families GET /api/metrics serves, as `name type`: what the rules and the dashboard may use.
# This list only keeps these two files in step with the exporter; the Rust test of the exporter
# checks the families themselves (names, types, labels, help texts).
FAMILIES=(
    "http_requests_total counter"
    "http_request_duration_seconds histogram"
    "reviewd_queue_depth gauge"
    "reviewd_queue_oldest_task_age_seconds gauge"
    "reviewd_review_tasks_total counter"
    "reviewd_job_runs_total counter"
    "reviewd_ai_calls_total counter"
    "reviewd_ai_tokens_total counter"
    "reviewd_ai_cost_usd gauge"
    "reviewd_reviews gauge"
    "reviewd_runners gauge"
    "reviewd_notifications gauge"
    "reviewd_budget_stops_total counter"
)

# Makes `promtool` available: Debian's prometheus package, installed with no service started.
reviewd_ensure_promtool() {
    if command -v promtool >/dev/null 2>&1; then
        return 0
    fi
    # The package's maintainer scripts start the service through invoke-rc.d (or
    # deb-systemd-invoke under systemd), and both ask /usr/sbin/policy-rc.d first: exit 101
    # forbids it. Docker images already have such a file; otherwise one is put there for the
    # install only.
    local policy=/usr/sbin/policy-rc.d
    local own_policy=0
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\n# reviewd: scripts/prometheus-check.sh installs packages; start no service.\nexit 101\n' |
            _reviewd_as_root tee "$policy" >/dev/null
        _reviewd_as_root chmod 755 "$policy"
        own_policy=1
        trap '_reviewd_as_root rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    local rc=0
    _reviewd_apt_install prometheus || rc=$?
    if [ "$own_policy" = 1 ]; then
        _reviewd_as_root rm -f "$policy"
        trap - EXIT
    fi
    if [ "$rc" != 0 ]; then
        return "$rc"
    fi
    _reviewd_prometheus_service_off
    if ! command -v promtool >/dev/null 2>&1; then
        reviewd_error "the prometheus package is installed, but promtool is not on PATH"
        return 1
    fi
}

# The package enables its service for the next boot: disable it, and stop it if it runs anyway
# (a policy-rc.d that allowed the start). Only called right after this script installed it.
_reviewd_prometheus_service_off() {
    if command -v deb-systemd-helper >/dev/null 2>&1; then
        _reviewd_as_root deb-systemd-helper disable prometheus.service >/dev/null 2>&1 || true
    fi
    if command -v update-rc.d >/dev/null 2>&1 && [ -x /etc/init.d/prometheus ]; then
        _reviewd_as_root update-rc.d prometheus disable >/dev/null 2>&1 || true
    fi
    if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
        # systemd is the init here.
        if systemctl is-active --quiet prometheus.service; then
            reviewd_info "stopping the prometheus service that the package started"
            _reviewd_as_root systemctl stop prometheus.service
        fi
    elif [ -x /etc/init.d/prometheus ] && /etc/init.d/prometheus status >/dev/null 2>&1; then
        # No systemd: the init script's daemon, found by its pid file.
        reviewd_info "stopping the prometheus daemon that the package started"
        _reviewd_as_root /etc/init.d/prometheus stop >/dev/null
    fi
    reviewd_info "the prometheus service is disabled and not running; only promtool is used"
}

# A python3 that has PyYAML.
reviewd_python_yaml() {
    local py
    for py in python3 /usr/bin/python3; do
        if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import yaml' >/dev/null 2>&1; then
            command -v "$py"
            return 0
        fi
    done
    _reviewd_apt_install python3-yaml >&2 || return 1
    command -v /usr/bin/python3
}

# The metric names used by the rules' expressions and the dashboard's queries, checked against
# FAMILIES (given as arguments). A histogram's _bucket, _sum and _count belong to it.
_reviewd_check_metric_names() {
    "$PYTHON" - "$RULES" "$DASHBOARD" "$@" <<'PY'
import json
import re
import sys

import yaml

rules_path, dashboard_path, *families = sys.argv[1:]
types = dict(f.split() for f in families)

KEYWORDS = {
    "and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right",
    "offset", "bool", "inf", "nan", "atan2",
}


def names(expr):
    """Metric names in a PromQL expression (or a Grafana variable query)."""
    # label_values(metric{...}, label): the label is not a metric.
    expr = re.sub(r"label_values\(([^,()]*(?:\{[^}]*\})?)\s*,\s*\w+\s*\)", r"\1", expr)
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)           # strings
    expr = re.sub(r"'(?:[^'\\]|\\.)*'", "", expr)
    expr = re.sub(r"\$\{[^}]*\}|\$\w+", "", expr)           # Grafana variables
    expr = re.sub(r"\{[^}]*\}", "", expr)                   # label matchers
    expr = re.sub(r"\[[^\]]*\]", "", expr)                  # ranges and subqueries
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", expr)
    found = set()
    for m in re.finditer(r"(?<![\w.:])([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?", expr):
        word, call = m.group(1), m.group(2)
        if call or word.lower() in KEYWORDS:
            continue
        found.add(word)
    return found


def family(name):
    if name in types:
        return name
    for suffix in ("_bucket", "_sum", "_count"):
        base = name[: -len(suffix)]
        if name.endswith(suffix) and types.get(base) == "histogram":
            return base
    return None


with open(rules_path) as f:
    rules = yaml.safe_load(f)
recorded = set()
uses = []  # (where, expr)
for group in rules.get("groups", []):
    for rule in group.get("rules", []):
        if "record" in rule:
            recorded.add(rule["record"])
        uses.append((f"{rules_path}: {rule.get('record') or rule.get('alert')}", rule["expr"]))

with open(dashboard_path) as f:
    dashboard = json.load(f)


def panels(items):
    for p in items:
        yield p
        yield from panels(p.get("panels", []))


for p in panels(dashboard.get("panels", [])):
    for t in p.get("targets", []):
        if "expr" in t:
            uses.append((f"{dashboard_path}: panel '{p.get('title')}'", t["expr"]))
for v in dashboard.get("templating", {}).get("list", []):
    if v.get("type") == "query":
        q = v.get("query")
        q = q.get("query", "") if isinstance(q, dict) else (q or "")
        uses.append((f"{dashboard_path}: variable '{v.get('name')}'", q))

bad = 0
used = set()
for where, expr in uses:
    for name in sorted(names(expr)):
        if name in recorded or name == "up" or family(name):
            used.add(family(name) or name)
            continue
        print(f"reviewd: error: {where}: '{name}' is not a family of GET /api/metrics", file=sys.stderr)
        bad += 1
unused = sorted(set(types) - used)
if unused:
    print(f"reviewd: note: families used by neither file: {', '.join(unused)}", file=sys.stderr)
if not bad:
    print(f"reviewd: {len(uses)} expressions, every metric name known", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# The dashboard's queries as recording rules, Grafana's variables replaced by sample values, so
# that promtool parses them.
_reviewd_dashboard_queries_as_rules() {
    "$PYTHON" - "$DASHBOARD" <<'PY'
import json
import re
import sys

with open(sys.argv[1]) as f:
    dashboard = json.load(f)


def panels(items):
    for p in items:
        yield p
        yield from panels(p.get("panels", []))


rules = []
for p in panels(dashboard.get("panels", [])):
    for t in p.get("targets", []):
        if "expr" in t:
            expr = re.sub(r"\$__(rate_)?interval|\$__range", "5m", t["expr"])
            expr = re.sub(r"\$\{?\w+\}?", ".*", expr)  # other variables stand in label matchers
            rules.append({"record": f"dashboard:query{len(rules)}", "expr": expr})
# JSON is YAML: promtool reads it as a rule file.
json.dump({"groups": [{"name": "dashboard", "rules": rules}]}, sys.stdout, indent=1)
PY
}

# The families of a saved scrape against FAMILIES (given as arguments after the file).
_reviewd_check_scrape_families() {
    "$PYTHON" - "$@" <<'PY'
import re
import sys

path, *families = sys.argv[1:]
expected = dict(f.split() for f in families)
typed = {}
sampled = set()
with open(path) as f:
    for line in f:
        m = re.match(r"#\s*TYPE\s+(\S+)\s+(\S+)", line)
        if m:
            typed[m.group(1)] = m.group(2)
            continue
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r"([A-Za-z_:][A-Za-z0-9_:]*)", line)
        if m:
            sampled.add(m.group(1))


def family(name):
    if name in typed:
        return name
    for suffix in ("_bucket", "_sum", "_count"):
        base = name[: -len(suffix)]
        if name.endswith(suffix) and typed.get(base) in ("histogram", "summary"):
            return base
    return name


present = {family(n) for n in sampled} | set(typed)
bad = 0
for name in sorted(present):
    if name not in expected:
        print(f"reviewd: error: {path}: family '{name}' is not in the list of scripts/prometheus-check.sh", file=sys.stderr)
        bad += 1
    elif typed.get(name, "untyped") != expected[name]:
        print(f"reviewd: error: {path}: '{name}' is {typed.get(name, 'untyped')}, expected {expected[name]}", file=sys.stderr)
        bad += 1
missing = sorted(set(expected) - present)
if missing:
    print(f"reviewd: note: {path}: not in this scrape (no value yet?): {', '.join(missing)}", file=sys.stderr)
if not bad:
    print(f"reviewd: {path}: {len(present)} families, all known, types as expected", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

reviewd_ensure_promtool
PYTHON="$(reviewd_python_yaml)"

failed=()

reviewd_info "promtool check rules $RULES"
if ! promtool check rules "$RULES"; then
    failed+=(check-rules)
fi

reviewd_info "promtool test rules $RULE_TESTS"
if ! promtool test rules "$RULE_TESTS"; then
    failed+=(test-rules)
fi

reviewd_info "JSON: $DASHBOARD"
if ! "$PYTHON" -m json.tool "$DASHBOARD" >/dev/null; then
    reviewd_error "$DASHBOARD is not valid JSON"
    failed+=(dashboard-json)
fi

reviewd_info "PromQL of the dashboard's queries (promtool check rules on a rule file made of them)"
queries="$(mktemp "${TMPDIR:-/tmp}/reviewd-dashboard-queries.XXXXXX")"
if ! _reviewd_dashboard_queries_as_rules >"$queries"; then
    failed+=(dashboard-promql)
elif ! parsed="$(promtool check rules "$queries" 2>&1)"; then
    printf '%s\n' "$parsed" >&2
    reviewd_error "a query of $DASHBOARD does not parse (the rule file made of them: $queries)"
    failed+=(dashboard-promql)
else
    rm -f "$queries"
fi

reviewd_info "metric names in $RULES and $DASHBOARD"
if ! _reviewd_check_metric_names "${FAMILIES[@]}"; then
    failed+=(metric-names)
fi

if [ "$#" -ge 1 ]; then
    scrape="$1"
    if [ ! -r "$scrape" ]; then
        reviewd_error "cannot read the scrape file '$scrape'"
        failed+=(scrape)
    else
        reviewd_info "promtool check metrics < $scrape"
        lint_rc=0
        lint="$(promtool check metrics <"$scrape" 2>&1)" || lint_rc=$?
        if [ -n "$lint" ] || [ "$lint_rc" != 0 ]; then
            printf '%s\n' "$lint" >&2
            reviewd_error "promtool check metrics found problems in $scrape (exit $lint_rc)"
            failed+=(check-metrics)
        fi
        if ! _reviewd_check_scrape_families "$scrape" "${FAMILIES[@]}"; then
            failed+=(scrape-families)
        fi
    fi
fi

if [ "${#failed[@]}" -gt 0 ]; then
    reviewd_error "failed: ${failed[*]}"
    exit 1
fi
reviewd_info "all monitoring checks passed"
