# capgate — developer tasks. Recipes are indented with tabs.
GO ?= go
BIN ?= bin/gateway

.DEFAULT_GOAL := build
.PHONY: build run test bench generate fmt vet clean

build:
	$(GO) build -o $(BIN) ./cmd/gateway

run: build
	./$(BIN) serve

test:
	bash scripts/test.sh

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
