#!/usr/bin/env bash
# scripts/test.sh — the whole test suite, as CI runs it (.ci/run -> make test).
#   1. start throwaway PostgreSQL and Redis (scripts/test-servers.sh)
#   2. in the background, at low CPU priority: go vet ./..., then the fuzz step's instrumented
#      builds (mostly compiling, which fills the cores the tests leave idle)
#   3. at once, each into its own log: the committed Go client (e2e/client) is what `make
#      generate` makes of today's document;
#   4. (with 3) helm lint and helm template of deploy/helm/capgate (helm built as a Go tool of its own
#      module, deploy/helm/tool, so the product's go.mod does not pull Kubernetes)
#   5. (with 3) the JavaScript of the e2e suite (scripts/js-deps.sh: Debian's nodejs and npm when missing,
#      the official TypeScript MCP SDK and the MCP conformance suite from e2e/js's lock file)
#   6. go test -race over every package (the chart test reuses the helm of step 4), the longest
#      packages first; beside it, the sequential sweeps (//go:build !race files) in a plain build
#   7. wait for step 2 and show its log; then a short fuzz run of every fuzz target, two at once
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
# fuzz_targets prints "package target" for every fuzz target.
fuzz_targets() {
	local file pkg
	while IFS= read -r file; do
		pkg=$(dirname "$file")
		sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/p' "$file" | sort -u | sed "s|^|$pkg |"
	done < <(grep -rl 'func Fuzz' --include='*_test.go' \
		--exclude-dir=.git --exclude-dir=vendor --exclude-dir=node_modules --exclude-dir=testdata . | sort)
}
background() {
	set -euo pipefail
	echo "--- go vet ./..."
	go vet ./...
	# Then the fuzz step's builds (coverage-instrumented, cached apart from the others), so that
	# on a cold build cache they are made here, in the cores the tests leave idle, and not in the
	# foreground at the end: one iteration of one target per package, its result not counted (a
	# starved run may fail to gather its baseline in time; the real runs come at the end).
	local pkg target seen=" "
	while read -r pkg target; do
		case "$seen" in *" $pkg "*) continue ;; esac
		seen+="$pkg "
		echo "--- building the fuzz test binary of $pkg"
		go test -run='^$' -fuzz="^${target}\$" -fuzztime=1x "$pkg" >/dev/null 2>&1 || true
	done < <(fuzz_targets)
}
step "go vet and the fuzz builds, in the background at low priority (log shown at the end)"
(renice -n 19 -p "$BASHPID" >/dev/null 2>&1 || true; background) >"$background_log" 2>&1 &
background_pid=$!

# Jobs run at once, each into a log of its own, shown in the order they were started once all
# have finished (the setup checks, the fuzz runs).
job_names=() job_logs=() job_pids=()
# start_job NAME COMMAND...: COMMAND in the background (with errexit), into its own log.
start_job() {
	local log
	log=$(mktemp)
	(set -euo pipefail; "${@:2}") >"$log" 2>&1 &
	job_names+=("$1") job_logs+=("$log") job_pids+=($!)
}
# finish_jobs: waits for every started job, shows each log under its name and exit status, and
# fails when any job failed.
finish_jobs() {
	local i rc failed=0
	for i in "${!job_pids[@]}"; do
		rc=0
		wait "${job_pids[i]}" || rc=$?
		printf -- '--- %s (rc %d)\n' "${job_names[i]}" "$rc"
		cat "${job_logs[i]}"
		rm -f "${job_logs[i]}"
		[ "$rc" = 0 ] || failed=1
	done
	job_names=() job_logs=() job_pids=()
	return "$failed"
}

# Steps 3 to 5 are independent of each other: they run at once, each into its own log, shown in
# order when all have finished (run one after another they took 17 to 33 s of the wall clock).
helm_dir=$(mktemp -d) # removed at the end, not by an EXIT trap: test-servers.sh owns that trap
check_client() {
	local gen_dir stale=0
	gen_dir=$(mktemp -d)
	bash scripts/gen-client.sh "$gen_dir"
	for f in openapi.json client.gen.go; do
		if ! cmp -s "$gen_dir/$f" "e2e/client/$f"; then
			echo "e2e/client/$f is stale: run make generate and commit the result" >&2
			diff -u "e2e/client/$f" "$gen_dir/$f" | head -40 >&2 || true
			stale=1
		fi
	done
	rm -rf "$gen_dir"
	[ "$stale" = 0 ]
}
check_chart() {
	go build -C deploy/helm/tool -o "$helm_dir/helm" helm.sh/helm/v3/cmd/helm
	"$helm_dir/helm" lint --strict deploy/helm/capgate -f deploy/helm/capgate/ci/test-values.yaml
	"$helm_dir/helm" template capgate deploy/helm/capgate -f deploy/helm/capgate/ci/test-values.yaml >/dev/null
}
step "at once: the generated client, the chart, the e2e JavaScript"
start_job "the generated client is current (scripts/gen-client.sh into a temp dir, then diff)" check_client
start_job "helm lint and helm template (deploy/helm/capgate)" check_chart
start_job "e2e JavaScript: the TypeScript MCP SDK and the MCP conformance suite (scripts/js-deps.sh)" bash scripts/js-deps.sh
finish_jobs || exit 1
export CAPGATE_TEST_HELM="$helm_dir/helm"

# The long sequential sweeps (test files marked //go:build !race: loops of single requests, in
# which the race detector finds nothing the concurrent tests miss, at five to ten times the CPU)
# run in a plain build, in the background beside the race run; their log is shown after it.
sweeps_log=$(mktemp)
sweeps() {
	set -euo pipefail
	local -A names=()
	local f d
	while IFS= read -r f; do
		d=$(dirname "$f")
		names[$d]+="$(sed -nE 's/^func (Test[A-Za-z0-9_]*)\(t \*testing\.T\).*/\1/p' "$f" | paste -sd'|')|"
	done < <(grep -rlx --include='*_test.go' --exclude-dir=.git --exclude-dir=node_modules '//go:build !race' . | sort)
	for d in $(printf '%s\n' "${!names[@]}" | sort); do
		echo "--- go test -count=1 $d (its //go:build !race tests)"
		go test -count=1 -run "^(${names[$d]%|})\$" "$d"
	done
}
step "in the background: the sweeps without the race detector (log shown after the race run)"
(sweeps) >"$sweeps_log" 2>&1 &
sweeps_pid=$!

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
	./gateway/ ./e2e/ ./e2e/browser/ ./console/ ./tenants/ ./... || go_test_rc=$?
# Where the time went, passed or failed: every test (top level or subtest) of 20 s or more.
echo "tests over 20 s (gotestsum tool slowest):"
go tool gotestsum tool slowest --jsonfile "$test_json" --threshold 20s || true
rm -f "$test_json"
if [ "$go_test_rc" != 0 ]; then
	for pid in "$background_pid" "$sweeps_pid"; do
		pkill -P "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true
	done
	exit "$go_test_rc"
fi

step "waiting for the sweeps"
sweeps_rc=0
wait "$sweeps_pid" || sweeps_rc=$?
cat "$sweeps_log"
rm -f "$sweeps_log"
[ "$sweeps_rc" = 0 ] || { echo "the sweeps failed (rc $sweeps_rc)" >&2; exit "$sweeps_rc"; }

step "waiting for go vet and the fuzz builds"
background_rc=0
wait "$background_pid" || background_rc=$?
cat "$background_log"
rm -f "$background_log"
[ "$background_rc" = 0 ] || { echo "go vet failed (rc $background_rc)" >&2; exit "$background_rc"; }

# The fuzz runs come last, in the foreground: a fuzz run is time-boxed, and one starved of CPU (at
# low priority beside the tests) failed with "context deadline exceeded" before its baseline
# coverage was gathered. Two run at a time (each with its two workers), each into its own log,
# shown in order.
step "fuzzing each target for ${FUZZTIME}, two at a time"
while read -r pkg target; do
	if [ "${#job_pids[@]}" -ge 2 ]; then
		# wait for the oldest still listed to keep at most two running
		wait "${job_pids[$((${#job_pids[@]} - 2))]}" 2>/dev/null || true
	fi
	start_job "fuzz $pkg $target" go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" "$pkg"
done < <(fuzz_targets)
fuzzed=${#job_pids[@]}
finish_jobs || exit 1
echo "fuzzed $fuzzed target(s)"
rm -rf "$helm_dir"
step "done"
