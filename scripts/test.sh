#!/usr/bin/env bash
# scripts/test.sh — the whole test suite, as CI runs it (.ci/run -> make test).
#   1. start throwaway PostgreSQL and Redis (scripts/test-servers.sh)
#   2. in the background, at low CPU priority: go vet ./... (mostly compiling, which fills the
#      cores the tests leave idle)
#   3. the committed Go client (e2e/client) is what `make generate` makes of today's document
#   4. helm lint and helm template of deploy/helm/capgate (helm built as a Go tool of its own
#      module, deploy/helm/tool, so the product's go.mod does not pull Kubernetes)
#   5. the JavaScript of the e2e suite (scripts/js-deps.sh: Debian's nodejs and npm when missing,
#      the official TypeScript MCP SDK and the MCP conformance suite from e2e/js's lock file)
#   6. go test -race over every package (the chart test reuses the helm of step 4), the longest
#      packages first
#   7. wait for step 2 and show its log; then a short fuzz run of every fuzz target
# Exits non-zero when any step fails.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

FUZZTIME=${FUZZTIME:-5s}

# Each step line carries the seconds since the start, so a slow step shows in CI's log.
started=$SECONDS
step() { printf '\n==> [+%ds] %s\n' "$((SECONDS - started))" "$*"; }

step "starting test servers"
# shellcheck source=scripts/test-servers.sh
source scripts/test-servers.sh || exit 1

go version

# go vet, in the background at nice 19: the race tests use about 1.5 of 2 cores on average
# (processes waiting on servers, browsers, subprocesses), and vet uses what is left.
background_log=$(mktemp)
background() {
	set -euo pipefail
	echo "--- go vet ./..."
	go vet ./...
}
step "go vet, in the background at low priority (log shown at the end)"
(renice -n 19 -p "$BASHPID" >/dev/null 2>&1 || true; background) >"$background_log" 2>&1 &
background_pid=$!

step "the generated client is current (scripts/gen-client.sh into a temp dir, then diff)"
gen_dir=$(mktemp -d) # removed below, not by an EXIT trap: test-servers.sh owns that trap
bash scripts/gen-client.sh "$gen_dir"
stale=0
for f in openapi.json client.gen.go; do
	if ! cmp -s "$gen_dir/$f" "e2e/client/$f"; then
		echo "e2e/client/$f is stale: run make generate and commit the result" >&2
		diff -u "e2e/client/$f" "$gen_dir/$f" | head -40 >&2 || true
		stale=1
	fi
done
rm -rf "$gen_dir"
[ "$stale" = 0 ] || exit 1

step "helm lint and helm template (deploy/helm/capgate)"
helm_dir=$(mktemp -d)
go build -C deploy/helm/tool -o "$helm_dir/helm" helm.sh/helm/v3/cmd/helm
"$helm_dir/helm" lint --strict deploy/helm/capgate -f deploy/helm/capgate/ci/test-values.yaml
"$helm_dir/helm" template capgate deploy/helm/capgate -f deploy/helm/capgate/ci/test-values.yaml >/dev/null
export CAPGATE_TEST_HELM="$helm_dir/helm"

step "e2e JavaScript: the TypeScript MCP SDK and the MCP conformance suite (scripts/js-deps.sh)"
bash scripts/js-deps.sh

step "go test -race -count=1 -p 4 -timeout 30m (a line per package as it finishes)"
# gotestsum (a Go tool of this module) runs go test -json and prints each package's result when
# it finishes, and every failure's output in full at the end; plain go test printed nothing for
# minutes while an early slow package ran.
test_json=$(mktemp)
go_test_rc=0
# The longest packages are named first so they start first: go test starts packages in the order
# given, and gateway, the longest, otherwise waited about 110 s behind console and e2e. Four
# packages run at once: on two cores the race tests used about 1.5 of them at -p 2 (processes
# waiting on servers, browsers and subprocesses, test binaries linking).
go tool gotestsum --format pkgname-and-test-fails --format-hide-empty-pkg --jsonfile "$test_json" -- -race -count=1 -p 4 -timeout 30m \
	./gateway/ ./gateway/consistency/ ./e2e/ ./e2e/browser/ ./console/ ./tenants/ ./... || go_test_rc=$?
# Where the time went, passed or failed: every test (top level or subtest) of 20 s or more.
echo "tests over 20 s (gotestsum tool slowest):"
go tool gotestsum tool slowest --jsonfile "$test_json" --threshold 20s || true
rm -f "$test_json"
if [ "$go_test_rc" != 0 ]; then
	pkill -P "$background_pid" 2>/dev/null || true; kill "$background_pid" 2>/dev/null || true
	exit "$go_test_rc"
fi

step "waiting for go vet"
background_rc=0
wait "$background_pid" || background_rc=$?
cat "$background_log"
rm -f "$background_log"
[ "$background_rc" = 0 ] || { echo "go vet failed (rc $background_rc)" >&2; exit "$background_rc"; }

# The fuzz runs come last, in the foreground: a fuzz run is time-boxed, and one starved of CPU (at
# low priority beside the tests) failed with "context deadline exceeded" before its baseline
# coverage was gathered.
step "fuzzing each target for ${FUZZTIME}"
mapfile -t fuzz_files < <(grep -rl 'func Fuzz' --include='*_test.go' \
	--exclude-dir=.git --exclude-dir=vendor --exclude-dir=node_modules --exclude-dir=testdata . | sort)
fuzz_count=0
for file in "${fuzz_files[@]}"; do
	pkg=$(dirname "$file")
	mapfile -t targets < <(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/p' "$file" | sort -u)
	for target in "${targets[@]}"; do
		echo "--- fuzz $pkg $target"
		go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" "$pkg"
		fuzz_count=$((fuzz_count + 1))
	done
done
echo "fuzzed $fuzz_count target(s)"
rm -rf "$helm_dir"
step "done"
