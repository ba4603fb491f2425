# capgate — developer tasks. Recipes are indented with tabs.
GO ?= go
BIN ?= bin/gateway

.DEFAULT_GOAL := build
.PHONY: build run test test-quick bench generate fmt vet clean

build:
	$(GO) build -o $(BIN) ./cmd/gateway

run: build
	./$(BIN) serve

test:
	bash scripts/test.sh

# The inner loop: SQLite only (no PostgreSQL, Redis or Chromium), no race detector, no fuzzing;
# the browser journeys and the Node.js clients skip themselves under -short. The longest packages
# start first, and six packages run at once (most of the small ones spend their time linking or
# waiting on sockets, so -p 6 on two cores took the run from 111 s to about 90 s). make test is what CI
# runs.
test-quick:
	CAPGATE_TEST_POSTGRES_URL= CAPGATE_TEST_REDIS_URL= CAPGATE_REQUIRE_SERVERS= \
		$(GO) tool gotestsum --format pkgname-and-test-fails --format-hide-empty-pkg -- -short -count=1 -p 6 \
		./gateway/ ./gateway/consistency/ ./e2e/ ./console/ ./tenants/ ./...

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...
	@if [ -f scripts/load.sh ]; then bash scripts/load.sh; else echo "scripts/load.sh not found; skipping load test"; fi

generate:
	$(GO) tool templ generate
	bash scripts/gen-client.sh

fmt:
	$(GO) fmt ./...

vet:
	$(GO) vet ./...

clean:
	rm -rf bin
