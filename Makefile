# Hark — run `make help` for the targets.

GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X main.version=$(VERSION)
BIN      := bin/hark
# Build tags: whisper is added when libwhisper can be found (see speech/whisper).
TAGS     ?=

.DEFAULT_GOAL := help

.PHONY: help build test bench vet fmt-check darwin-check

help: ## List the targets with what they do
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  make %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## Build bin/hark for this machine
	$(GO) build -tags '$(TAGS)' -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/hark

test: fmt-check vet darwin-check ## Run every check and test (what CI runs)
	$(GO) test -race -count=1 ./...

vet: ## Run go vet
	$(GO) vet ./...

fmt-check: ## Fail when a Go file is not gofmt-formatted
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

darwin-check: ## Cross-build every package for macOS without cgo (the compile check of macOS code)
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build ./...
	CGO_ENABLED=0 $(GO) build ./app/... ./agent/... ./shell/... ./speech/...

bench: ## Run the benchmarks (ratios against baselines measured in the same run)
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./...
