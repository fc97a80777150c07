#!/usr/bin/env bash
# Checks the Kubernetes manifests offline:  ./scripts/deploy-check.sh
#
# Renders every Kustomization under deploy/kubernetes (base, each overlay, migrate; the components
# through the overlays that use them) with `kubectl kustomize`, then validates every rendered object
# against the Kubernetes API schemas with kubernetes-validate, strictly (an unknown field fails), for
# each version of REVIEWD_K8S_VERSIONS (default: the oldest and the newest this pins). An unknown kind
# fails too. No cluster and no network are needed once the tools are there. Prints one line per
# manifest set; exits non-zero on the first set that fails.
#
# kubectl (with its built-in Kustomize v5) comes from the machine, or apt-get when missing.
# kubernetes-validate comes from PyPI into a virtual environment (REVIEWD_DEPLOY_VENV, default
# ~/.cache/reviewd/deploy-venv), as scripts/schemathesis.sh does for its tools.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/services.sh
source scripts/services.sh

validator_version="1.37.0"
read -r -a k8s_versions <<<"${REVIEWD_K8S_VERSIONS:-1.30.0 1.37.0}"
venv="${REVIEWD_DEPLOY_VENV:-$HOME/.cache/reviewd/deploy-venv}"
root="deploy/kubernetes"

# --- tools
if ! command -v kubectl >/dev/null 2>&1; then
    _reviewd_apt_install kubectl || true
fi
if ! command -v kubectl >/dev/null 2>&1; then
    reviewd_error "kubectl not found, and apt-get could not install it: install kubectl 1.27 or newer" \
        "(it has Kustomize v5 built in) and run this again"
    exit 1
fi
kustomize_version="$(kubectl version --client 2>/dev/null | sed -n 's/^Kustomize Version: v\{0,1\}//p')"
case "$kustomize_version" in
[5-9].* | [1-9][0-9].*) ;;
*)
    reviewd_error "kubectl's built-in Kustomize is '${kustomize_version:-unknown}'; these manifests need v5" \
        "(components, labels): install kubectl 1.27 or newer"
    exit 1
    ;;
esac
if [ "$("$venv/bin/kubernetes-validate" --version 2>/dev/null || true)" != "$validator_version" ]; then
    reviewd_info "installing kubernetes-validate $validator_version into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "kubernetes-validate==$validator_version"
fi

# --- what to check
# Tests read these four files' keys as they are: values must be plain, never `$(VAR)` references.
plain_files=("$root/base/reviewd-config.yaml" "$root/base/reviewd-secrets.yaml"
    "$root/base/runner-config.yaml" "$root/base/runner-secrets.yaml")
for file in "${plain_files[@]}"; do
    if [ ! -f "$file" ]; then
        reviewd_error "$file is missing"
        exit 1
    fi
    if grep -nF -- "\$(" "$file" >&2; then
        reviewd_error "$file: a value refers to another variable with \$(...); write it out"
        exit 1
    fi
done

# Every kustomization, components apart: a new overlay is checked without editing this script.
sets=()
while IFS= read -r file; do
    grep -q '^kind: Component' "$file" || sets+=("$(dirname "$file")")
done < <(find "$root" -name kustomization.yaml | sort)
if [ "${#sets[@]}" -eq 0 ]; then
    reviewd_error "no kustomization.yaml under $root"
    exit 1
fi
# A component no overlay uses would never be rendered, hence never checked.
for component in "$root"/components/*/; do
    name="components/$(basename "$component")"
    if ! grep -rqF -- "$name" "$root/overlays"; then
        reviewd_error "$name is used by no overlay, so nothing checks it: add it to one"
        exit 1
    fi
done

# --- render and validate
tmp="$(mktemp -d "${TMPDIR:-/tmp}/reviewd-deploy-check.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
for dir in "${sets[@]}"; do
    set_name="${dir#"$root"/}"
    rendered="$tmp/${set_name//\//-}.yaml"
    if ! kubectl kustomize "$dir" >"$rendered" 2>"$tmp/kustomize.err"; then
        cat "$tmp/kustomize.err" >&2
        reviewd_error "$set_name: kubectl kustomize failed"
        exit 1
    fi
    objects=0
    for version in "${k8s_versions[@]}"; do
        # It exits 0 on a kind it has no schema for (a WARN line): that fails here too.
        if ! "$venv/bin/kubernetes-validate" --strict --kubernetes-version "$version" "$rendered" \
            >"$tmp/validate.out" 2>&1 || grep -qv '^INFO ' "$tmp/validate.out"; then
            grep -v '^INFO ' "$tmp/validate.out" | sed "s#$rendered#$set_name#" >&2
            reviewd_error "$set_name: not valid for Kubernetes $version"
            exit 1
        fi
        objects="$(grep -c ' passed for resource ' "$tmp/validate.out" || true)"
    done
    if [ "$objects" -eq 0 ]; then
        reviewd_error "$set_name: rendered no object"
        exit 1
    fi
    printf 'ok  %-16s %2d object(s), valid for Kubernetes %s (strict)\n' \
        "$set_name" "$objects" "${k8s_versions[*]}"
done
