# Hark — run `make help` for the targets.

GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X main.version=$(VERSION)
BIN      := bin/hark
# Build tags: whisper is added when libwhisper can be found (see speech/whisper):
# through pkg-config (PKG_CONFIG_PATH may name a private whisper.cpp install),
# else in Homebrew's whisper-cpp (its ggml is a separate formula). cgo then gets
# the header and library folders; without libwhisper, hark builds without it.
HOMEBREW_PREFIX ?= $(firstword $(wildcard /opt/homebrew /usr/local))
WHISPER_PC      := $(shell pkg-config --exists whisper 2>/dev/null && echo yes)
WHISPER_BREW    := $(if $(WHISPER_PC),,$(wildcard $(HOMEBREW_PREFIX)/opt/whisper-cpp/lib/libwhisper.*))
WHISPER_CFLAGS  := $(if $(WHISPER_PC),$(shell pkg-config --cflags whisper),$(if $(WHISPER_BREW),$(foreach f,whisper-cpp ggml,-I$(HOMEBREW_PREFIX)/opt/$(f)/include) -I$(HOMEBREW_PREFIX)/include))
WHISPER_LDFLAGS := $(if $(WHISPER_PC),$(shell pkg-config --libs-only-L whisper),$(if $(WHISPER_BREW),$(foreach f,whisper-cpp ggml,-L$(HOMEBREW_PREFIX)/opt/$(f)/lib) -L$(HOMEBREW_PREFIX)/lib))
TAGS     ?= $(if $(WHISPER_PC)$(WHISPER_BREW),whisper)
build: export CGO_CFLAGS  := $(strip $(or $(CGO_CFLAGS),-O2 -g) $(WHISPER_CFLAGS))
build: export CGO_LDFLAGS := $(strip $(or $(CGO_LDFLAGS),-O2 -g) $(WHISPER_LDFLAGS))

.DEFAULT_GOAL := help

.PHONY: help build test e2e bench vet fmt-check darwin-check

help: ## List the targets with what they do
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  make %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## Build bin/hark for this machine
	$(GO) build -tags '$(TAGS)' -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/hark

test: fmt-check vet darwin-check ## Run every check and test (what CI runs)
	$(GO) test -race -count=1 ./...
ifeq ($(shell uname -s),Linux)
	$(MAKE) e2e
endif

e2e: ## Run the end-to-end desktop suite in a private D-Bus session (Linux: Xvfb, PulseAudio, xdotool)
	$(GO) vet -tags e2e ./app/e2e/... ./cmd/hark/
	dbus-run-session -- $(GO) test -tags e2e -count=1 -timeout 5m ./app/e2e/...

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

# ---- First run and packaging -------------------------------------------------
UNAME   := $(shell uname -s)
APP     := dist/Hark.app
PREFIX  ?= $(HOME)/.local
COMMITS := $(shell git rev-list --count HEAD 2>/dev/null || echo 0)
MKAPP   := $(GO) run ./cmd/mkapp

.PHONY: run app install prereqs

prereqs: ## Check the system packages needed to build, printing the one line that installs what is missing
ifeq ($(UNAME),Darwin)
	@command -v brew >/dev/null || { echo "Homebrew is missing: install it from https://brew.sh, then run 'make run' again."; exit 1; }
	@missing=""; \
	command -v pkg-config >/dev/null || missing="$$missing pkgconf"; \
	pkg-config --exists portaudio-2.0 2>/dev/null || missing="$$missing portaudio"; \
	$(if $(WHISPER_PC)$(WHISPER_BREW),,missing="$$missing whisper-cpp";) \
	command -v ollama >/dev/null || [ -d /Applications/Ollama.app ] || missing="$$missing ollama"; \
	if [ -n "$$missing" ]; then \
	  echo "Missing Homebrew packages. Install them with:"; echo; echo "  brew install$$missing"; echo; \
	  case "$$missing" in *portaudio*|*pkgconf*) echo "(pkgconf and portaudio are needed to build Hark: stopping here.)"; exit 1;; esac; \
	  echo "(Continuing: Hark starts without them and its menu says what is missing.)"; \
	fi
else
	@missing=""; \
	command -v pkg-config >/dev/null || missing="$$missing pkg-config"; \
	pkg-config --exists portaudio-2.0 2>/dev/null || missing="$$missing portaudio19-dev"; \
	if [ -n "$$missing" ]; then \
	  echo "Missing packages. Install them with:"; echo; echo "  sudo apt-get install$$missing"; echo; exit 1; \
	fi
	@echo "$(if $(WHISPER_PC),libwhisper found: building with whisper.cpp.,libwhisper not found: building without whisper.cpp (no voice input; 'hark send' and Type a request… still work; the README says how to add it).)"
endif

run: prereqs build ## From a fresh clone to a running Hark: check packages, build, fetch the speech model, check Ollama, start the app
	@$(BIN) doctor -first-run
ifeq ($(UNAME),Darwin)
	@$(MAKE) --no-print-directory app
	open $(APP)
else
	$(BIN)
endif

app: build ## Build dist/Hark.app (version from git in Info.plist, hark.icns) and sign it ad hoc on macOS
	$(MKAPP) app -bin $(BIN) -o $(APP) -plist Info.plist -version '$(VERSION)' -commits $(COMMITS)
ifeq ($(UNAME),Darwin)
	codesign --force --deep --sign - $(APP)
endif

install: $(if $(filter Darwin,$(UNAME)),app,build) ## Install Hark: /Applications/Hark.app on macOS; ~/.local/bin/hark, a launcher and icons on Linux
ifeq ($(UNAME),Darwin)
	rm -rf /Applications/Hark.app
	ditto $(APP) /Applications/Hark.app
	@echo "Installed /Applications/Hark.app: open it from Spotlight; 'hark login-item on' inside it starts it at login."
else
	$(MKAPP) linux-install -bin $(BIN) -prefix '$(PREFIX)'
	@command -v update-desktop-database >/dev/null && update-desktop-database -q '$(PREFIX)/share/applications' || true
	@command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t '$(PREFIX)/share/icons/hicolor' || true
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "Add $(PREFIX)/bin to your PATH to run 'hark' from a terminal.";; esac
endif
