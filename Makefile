# Hark — run `make help` for the targets.

GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X main.version=$(VERSION)
BIN      := bin/hark
# Build tags: whisper is added only when libwhisper can really be built
# against (see speech/whisper): pkg-config finds whisper.pc (PKG_CONFIG_PATH
# may name a private install), the whisper.h its includedir promises is
# there (a whisper.pc keeps the prefix it was configured with, whatever
# `cmake --install --prefix` said), and ggml's CPU backend is either a
# library to link or a plug-in ggml loads at run time. Otherwise hark builds
# without whisper.cpp and `make whisper-config` says why.
#
# Homebrew splits whisper-cpp and ggml into two kegs: whisper.h includes
# ggml.h from the other one, so the compile flags come from
# `pkg-config --cflags whisper ggml`. Its ggml is built with
# GGML_BACKEND_DL=ON: the CPU, Metal and BLAS backends are plug-ins
# (libggml-cpu*.so … in the ggml keg's libexec) that ggml dlopens, not
# libraries to link. The pinned Go bindings still ask for them by name
# (-lggml-cpu, and -lggml-metal -lggml-blas on macOS, in their
# bindings/go/whisper.go). For each of those names the install lacks as a
# library, make builds an empty placeholder archive in $(WHISPER_SHIMDIR) so
# the link succeeds, and speech/whisper calls ggml_backend_load_all() before
# the first model loads, which finds the plug-ins through the folder ggml
# was built with (Homebrew's libexec) and keeps Metal. A placeholder is made
# only when a CPU plug-in is really there, so a build never links without
# a backend. Every library folder is also added as an rpath, so a private
# prefix runs without LD_LIBRARY_PATH.
#
# Debian and Ubuntu (libwhisper-dev) build ggml the same way, with the CPU
# plug-ins in <libdir>/ggml/backends0; Nix puts them in its bin. Where
# whisper.pc is outside pkg-config's folders, or missing (Fedora), locate.sh
# finds the install (speech/whisper/make; the tests lay out each
# distribution's files in speech/whisper/testdata/distributions).
PKGCONF         := $(shell command -v pkg-config 2>/dev/null)
HOST_OS         ?= $(shell uname -s)
# pkg-config sees only its default folders; locate.sh adds the one that holds
# whisper.pc when a distribution, Nix, Homebrew on Linux, a build in ~/.local
# or `make whisper` put it elsewhere, and writes a whisper.pc for an install
# without one (Fedora's). WHISPER_ROOT stands in for / in the tests.
WHISPER_MAKEDIR     := $(CURDIR)/speech/whisper/make
WHISPER_RELEASE     ?= 1.9.3
WHISPER_COMMIT      ?= 371b5a7561823ab2bb32142d2751e35e7534727b
HARK_WHISPER_PREFIX ?= $(HOME)/.local/share/hark/whisper.cpp-$(WHISPER_RELEASE)
WHISPER_PCDIR       ?= $(CURDIR)/bin/pkgconfig
WHISPER_ROOT        ?=
WHISPER_LOCATE   = PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)' WHISPER_ROOT='$(WHISPER_ROOT)' WHISPER_PCDIR='$(WHISPER_PCDIR)' \
  HARK_WHISPER_PREFIX='$(HARK_WHISPER_PREFIX)' $(SHELL) $(WHISPER_MAKEDIR)/locate.sh
WHISPER_PCPATH  := $(if $(PKGCONF),$(shell $(WHISPER_LOCATE) pcpath))
PKGCONFIG       := PKG_CONFIG_PATH='$(WHISPER_PCPATH)' pkg-config
WHISPER_PC      := $(if $(PKGCONF),$(shell $(PKGCONFIG) --exists whisper 2>/dev/null && echo yes))
GGML_PC         := $(if $(WHISPER_PC),$(shell $(PKGCONFIG) --exists ggml 2>/dev/null && echo yes))
WHISPER_PKGS    := whisper $(if $(GGML_PC),ggml)
WHISPER_INCDIR  := $(if $(WHISPER_PC),$(shell $(PKGCONFIG) --variable=includedir whisper))
WHISPER_LIBDIRS := $(if $(WHISPER_PC),$(sort $(patsubst -L%,%,$(filter -L%,$(shell $(PKGCONFIG) --libs-only-L $(WHISPER_PKGS)))) $(shell $(PKGCONFIG) --variable=libdir $(WHISPER_PKGS))))
WHISPER_HEADER  := $(if $(WHISPER_INCDIR),$(wildcard $(WHISPER_INCDIR)/whisper.h))
# The backend libraries the bindings link by name, and the files that count
# as linkable: on macOS a .so is a loadable bundle, which ld refuses.
BINDINGS_GGML   := ggml-cpu $(if $(filter Darwin,$(HOST_OS)),ggml-metal ggml-blas)
LINKABLE_EXTS   := .a $(if $(filter Darwin,$(HOST_OS)),.dylib .tbd,.so)
linkable         = $(firstword $(foreach d,$(WHISPER_LIBDIRS),$(foreach x,$(LINKABLE_EXTS),$(wildcard $(d)/lib$(1)$(x)))))
GGML_UNLINKABLE := $(if $(WHISPER_HEADER),$(foreach n,$(BINDINGS_GGML),$(if $(call linkable,$(n)),,$(n))))
# Where a GGML_BACKEND_DL install puts its plug-ins: GGML_BACKEND_DIR
# (Homebrew: libexec; Debian and Ubuntu: <libdir>/ggml/backends0), else bin,
# or beside the libraries.
GGML_PREFIX     := $(if $(GGML_PC),$(shell $(PKGCONFIG) --variable=prefix ggml),$(if $(WHISPER_PC),$(shell $(PKGCONFIG) --variable=prefix whisper)))
GGML_MODULEDIRS := $(sort $(GGML_PREFIX)/libexec $(GGML_PREFIX)/bin $(WHISPER_LIBDIRS) $(wildcard $(addsuffix /ggml/backends*,$(WHISPER_LIBDIRS))))
GGML_CPU_MODULE := $(if $(GGML_UNLINKABLE),$(firstword $(foreach d,$(GGML_MODULEDIRS),$(wildcard $(d)/libggml-cpu*.so))))
WHISPER_REFIX   := $(if $(filter Darwin,$(HOST_OS)),reinstall ggml (brew reinstall ggml) or build whisper.cpp yourself (see docs/install.md),reinstall the ggml your whisper.cpp came with, or run 'make whisper' to build whisper.cpp for Hark)
WHISPER_WHY     := $(strip \
  $(if $(WHISPER_PC),,libwhisper not found (pkg-config knows no whisper.pc)) \
  $(if $(WHISPER_PC),$(if $(WHISPER_HEADER),,whisper.pc says its headers are in $(WHISPER_INCDIR), but whisper.h is not there: reinstall whisper.cpp configured with -DCMAKE_INSTALL_PREFIX=DIR (see docs/install.md))) \
  $(if $(filter ggml-cpu,$(GGML_UNLINKABLE)),$(if $(GGML_CPU_MODULE),,ggml's CPU backend is neither a library to link in $(WHISPER_LIBDIRS) nor a plug-in in $(GGML_MODULEDIRS): $(WHISPER_REFIX))))
WHISPER_OK      := $(if $(WHISPER_WHY),,yes)
WHISPER_SHIMDIR := $(CURDIR)/bin/ggml-placeholders
WHISPER_SHIMS   := $(if $(WHISPER_OK),$(foreach n,$(GGML_UNLINKABLE),$(WHISPER_SHIMDIR)/lib$(n).a))
WHISPER_CFLAGS  := $(if $(WHISPER_OK),$(shell $(PKGCONFIG) --cflags $(WHISPER_PKGS)))
WHISPER_LDFLAGS := $(if $(WHISPER_OK),$(strip $(shell $(PKGCONFIG) --libs-only-L $(WHISPER_PKGS)) \
  $(if $(WHISPER_SHIMS),-L$(WHISPER_SHIMDIR)) $(foreach d,$(WHISPER_LIBDIRS),-Wl,-rpath,$(d))))
TAGS     ?= $(if $(WHISPER_OK),whisper)
# What `hark doctor` says about the whisper.cpp it was built with: version,
# where it came from (asked only by the targets that print or record it),
# and the folder of ggml's CPU plug-in, which Hark loads from there when
# ggml itself does not know it (Nix puts it in bin).
WHISPER_LIBVERSION  = $(if $(WHISPER_OK),$(shell $(PKGCONFIG) --modversion whisper))
WHISPER_ORIGIN      = $(if $(WHISPER_OK),$(shell $(WHISPER_LOCATE) origin '$(shell $(PKGCONFIG) --variable=pcfiledir whisper)' '$(WHISPER_PCPATH)'))
WHISPER_PLUGINDIR  := $(patsubst %/,%,$(dir $(GGML_CPU_MODULE)))
WHISPER_GOPKG      := github.com/hark-sh/hark/speech/whisper
# Without whisper.cpp, doctor's fix on Linux is the one command that gets it
# here, asked of the package manager only when a build needs it (= not :=);
# on macOS it is always Homebrew's, which Hark knows by itself.
WHISPER_HINT        = $(shell $(SHELL) $(WHISPER_MAKEDIR)/package.sh hint)
WHISPER_XFLAGS      = $(if $(filter whisper,$(TAGS)),-X "$(WHISPER_GOPKG).libVersion=$(WHISPER_LIBVERSION)" \
  -X "$(WHISPER_GOPKG).libOrigin=$(WHISPER_ORIGIN)" $(if $(WHISPER_PLUGINDIR),-X "$(WHISPER_GOPKG).pluginDir=$(WHISPER_PLUGINDIR)"),\
  $(if $(filter Darwin,$(HOST_OS)),,-X "$(WHISPER_GOPKG).installHint=$(WHISPER_HINT)"))
# build, test and bench all see the tag and its flags, so the whisper tests
# and benchmarks run through make on a machine that has libwhisper.
build test bench: export CGO_CFLAGS  := $(strip $(or $(CGO_CFLAGS),-O2 -g) $(WHISPER_CFLAGS))
build test bench: export CGO_LDFLAGS := $(strip $(or $(CGO_LDFLAGS),-O2 -g) $(WHISPER_LDFLAGS))
build test bench: $(if $(filter whisper,$(TAGS)),$(WHISPER_SHIMS))

# A placeholder for a backend ggml loads as a plug-in: an archive with one
# unused symbol, which any linker accepts and none pulls in.
$(WHISPER_SHIMDIR)/lib%.a:
	@mkdir -p $(@D)
	@printf 'char hark_placeholder_%s;\n' '$(subst -,_,$*)' | $$($(GO) env CC) -x c -c -o $@.o -
	@rm -f $@.tmp && ar rcs $@.tmp $@.o && rm -f $@.o && mv $@.tmp $@

.DEFAULT_GOAL := help

.PHONY: help build test e2e bench vet fmt-check darwin-check whisper-config whisper

help: ## List the targets with what they do
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  make %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# build records the tags it built with beside the binary, so that a bundle
# made later says (and is) the binary that was really built, with or
# without voice input.
build: ## Build bin/hark for this machine
	$(GO) build -tags '$(TAGS)' -ldflags '$(LDFLAGS) $(WHISPER_XFLAGS)' -o $(BIN) ./cmd/hark
	@printf '%s\n' '$(TAGS)' > $(BIN).tags

test: fmt-check vet darwin-check ## Run every check and test (what CI runs)
	$(GO) test -race -count=1 -tags '$(TAGS)' ./...
	@# Memory-cap rows that -race's shadow memory would swamp, as root and nobody.
	$(GO) test -count=1 -run 'TestEscapeMemoryCapCountsWhatTheKernelHolds|TestEscapeAsNobody' ./shell/
ifeq ($(shell uname -s),Linux)
	$(MAKE) e2e
endif

e2e: ## Run the end-to-end desktop suite in a private D-Bus session (Linux: Xvfb, PulseAudio, xdotool)
	$(GO) vet -tags e2e ./app/e2e/... ./cmd/hark/
	dbus-run-session -- $(GO) test -tags e2e -count=1 -timeout 5m ./app/e2e/...

whisper-config: ## Say whether whisper.cpp will be built in, and why not
	@echo "tags: $(TAGS)"
	@echo "cflags: $(WHISPER_CFLAGS)"
	@echo "ldflags: $(WHISPER_LDFLAGS)"
	@echo "placeholders: $(notdir $(WHISPER_SHIMS))"
	@echo "version: $(WHISPER_LIBVERSION)"
	@echo "from: $(WHISPER_ORIGIN)"
	@echo "plug-ins: $(WHISPER_PLUGINDIR)"
	@echo "$(if $(WHISPER_OK),libwhisper found: building with whisper.cpp.,building without whisper.cpp: $(WHISPER_WHY).)"

# whisper builds the pinned release into HARK_WHISPER_PREFIX, where
# whisper-config then finds it. WHISPER_GIT= names another source (a local
# mirror); the commit is checked against WHISPER_COMMIT all the same.
WHISPER_GIT   ?= https://github.com/ggml-org/whisper.cpp.git
WHISPER_BUILD  = WHISPER_GIT='$(WHISPER_GIT)' WHISPER_RELEASE='$(WHISPER_RELEASE)' WHISPER_COMMIT='$(WHISPER_COMMIT)' \
  HARK_WHISPER_PREFIX='$(HARK_WHISPER_PREFIX)' WHISPER_TTY='$(PREREQS_TTY)' HARK_SH='$(SHELL)' $(SHELL) $(WHISPER_MAKEDIR)/build.sh

whisper: ## Build whisper.cpp (the pinned release) into ~/.local/share/hark, for Linux without a whisper.cpp package
	@$(WHISPER_BUILD)

vet: ## Run go vet
	$(GO) vet ./...

fmt-check: ## Fail when a Go file is not gofmt-formatted
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# go build never compiles a _test.go file, so vet (which type-checks the
# tests too) runs for both Mac architectures: a test naming something
# defined only for Linux must fail here, not on a Mac.
darwin-check: ## Cross-build and vet every package and its tests for macOS (arm64, amd64) without cgo (the compile check of macOS code)
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build ./...
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet ./...
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./app/... ./agent/... ./shell/... ./speech/...

bench: ## Run the benchmarks (ratios against baselines measured in the same run)
	$(GO) test -run '^$$' -bench . -benchmem -count=1 -tags '$(TAGS)' ./...

# ---- First run and packaging -------------------------------------------------
UNAME   := $(shell uname -s)
APP     := dist/Hark.app
PREFIX  ?= $(HOME)/.local
COMMITS := $(shell git rev-list --count HEAD 2>/dev/null || echo 0)
MKAPP   ?= $(GO) run ./cmd/mkapp

.PHONY: run build-any app bundle install prereqs

# PREREQS_TTY decides whether prereqs may ask before installing: only when
# both stdin and stdout are a terminal. Tests set it to true or false.
PREREQS_TTY ?= [ -t 0 ] && [ -t 1 ]

# offer_install shows $$line, the one command that installs what is missing,
# and on a terminal asks whether to run it; it never runs it unasked.
# installed=yes afterwards when it ran and succeeded.
define offer_install
echo; echo "  $$line"; echo; installed=""; \
if $(PREREQS_TTY); then \
  printf 'Install them now? [y/N] '; answer=""; read -r answer || true; \
  case "$$answer" in \
  [yY]|[yY][eE][sS]) \
    echo "+ $$line"; \
    if $$line; then installed=yes; echo "Installed."; \
    else echo "The install failed (see above); fix what it says, or run the line yourself, then 'make run' again."; exit 1; fi;; \
  esac; \
fi
endef

prereqs: ## Check the system packages needed to build; on a terminal offer to run the one line that installs what is missing
ifeq ($(UNAME),Darwin)
	@command -v brew >/dev/null || { echo "Homebrew is missing: install it from https://brew.sh, then run 'make run' again."; exit 1; }
	@missing=""; \
	command -v pkg-config >/dev/null || missing="$$missing pkgconf"; \
	pkg-config --exists portaudio-2.0 2>/dev/null || missing="$$missing portaudio"; \
	pkg-config --exists whisper 2>/dev/null || missing="$$missing whisper-cpp"; \
	command -v ollama >/dev/null || [ -d /Applications/Ollama.app ] || missing="$$missing ollama"; \
	if [ -n "$$missing" ]; then \
	  echo "Missing Homebrew packages. Install them with:"; line="brew install$$missing"; \
	  $(offer_install); \
	  if [ -z "$$installed" ]; then \
	    case "$$missing" in *portaudio*|*pkgconf*) echo "(pkgconf and portaudio are needed to build Hark: stopping here.)"; exit 1;; esac; \
	    echo "(Continuing: Hark starts without them and its menu says what is missing.)"; \
	  fi; \
	fi
	@echo "$(if $(WHISPER_OK),libwhisper found: building with whisper.cpp.,building without whisper.cpp: $(WHISPER_WHY) (no voice input; 'hark send' and Type a request… still work).)"
else
	@missing=""; install=""; pc=""; pa=""; wpkg=""; \
	if command -v apt-get >/dev/null; then install="apt-get install"; pc=pkg-config; pa=portaudio19-dev; \
	elif command -v dnf >/dev/null; then install="dnf install"; pc=pkgconf-pkg-config; pa=portaudio-devel; \
	elif command -v pacman >/dev/null; then install="pacman -S"; pc=pkgconf; pa=portaudio; fi; \
	command -v pkg-config >/dev/null || missing="$$missing $${pc:-pkg-config}"; \
	pkg-config --exists portaudio-2.0 2>/dev/null || missing="$$missing $${pa:-PortAudio's development files}"; \
	$(if $(WHISPER_OK),,[ -z "$$install" ] || wpkg=$$($(SHELL) $(WHISPER_MAKEDIR)/package.sh name);) \
	if [ -n "$$missing" ] && [ -z "$$install" ]; then \
	  echo "Missing packages:$$missing. Install them with your package manager, then run 'make run' again."; exit 1; \
	fi; \
	if [ -n "$$missing$$wpkg" ]; then \
	  if [ -n "$$missing" ]; then echo "Missing packages$${wpkg:+ (and $$wpkg, whisper.cpp for voice input)}. Install them with:"; \
	  else echo "whisper.cpp, for voice input, is packaged here as $$wpkg. Install it with:"; fi; \
	  line="$$install$$missing$${wpkg:+ $$wpkg}"; [ "$$(id -u)" = 0 ] || line="sudo $$line"; \
	  $(offer_install); \
	  [ -n "$$installed" ] || [ -z "$$missing" ] || exit 1; \
	fi; \
	if [ -n "$$wpkg" ] && [ -n "$$installed" ]; then echo "libwhisper installed: building with whisper.cpp."; \
	else echo "$(if $(WHISPER_OK),libwhisper found: building with whisper.cpp.,building without whisper.cpp: $(WHISPER_WHY) (no voice input; 'hark send' and Type a request… still work).)"; fi; \
	$(if $(WHISPER_PC),,[ -n "$$wpkg" ] || $(WHISPER_BUILD) -ask || true)
endif

run: prereqs build-any ## From a fresh clone to a running Hark: check packages, build, fetch the speech model, check Ollama, start the app
	@$(BIN) doctor -first-run
ifeq ($(UNAME),Darwin)
	@$(MAKE) --no-print-directory bundle
	@# open only brings a running Hark to the front: quit it first so that
	@# the build just made is the one that starts.
	@$(BIN) quit
	open $(APP)
else
	$(BIN)
endif

# macOS keeps permissions (microphone, notifications, folders) per code
# identity. Ad hoc, every build is a new identity; a certificate (Apple
# Development, or a self-signed "Hark Code Signing") keeps them across
# rebuilds. CODESIGN_IDENTITY picks one by hash or name; - forces ad hoc.
CODESIGN_IDENTITY ?=

# build-any is the build `make run` uses: should the build with whisper.cpp
# fail on a system it was not tried on, Hark is built without voice input
# rather than not at all, and the message says where to report it.
build-any:
	@$(MAKE) --no-print-directory build || { [ -n "$(filter whisper,$(TAGS))" ] || exit 1; \
	  echo; echo "The build with whisper.cpp failed (above). Building without voice input instead;"; \
	  echo "please report the lines above (docs/macos.md, first-run check, step 1)."; echo; \
	  $(MAKE) --no-print-directory build TAGS=; }

app: build ## Build dist/Hark.app (version from git in Info.plist, hark.icns); on macOS sign it, with a stable identity when the keychain has one
	@$(MAKE) --no-print-directory bundle

# On macOS the bundle is assembled and signed in APP_STAGE, outside the
# checkout: in a Desktop or Documents folder that iCloud syncs, File
# Provider keeps adding extended attributes to a fresh bundle and codesign
# refuses it ("resource fork, Finder information, or similar detritus not
# allowed"). The signed bundle is then copied to dist/ without them.
APP_STAGE    ?= $(if $(filter Darwin,$(UNAME)),$(HOME)/Library/Caches/Hark/build/Hark.app,$(APP))
APPLICATIONS ?= /Applications

# bundle makes the app from the binary already built, whatever tags that
# build used (build-any may have fallen back to no voice input): it never
# rebuilds, so a fallback build is what reaches dist/ and /Applications.
bundle:
	@test -x $(BIN) || { echo "$(BIN) is missing: run 'make build' first."; exit 1; }
	@tags=$$(cat $(BIN).tags 2>/dev/null); \
	case " $$tags " in *" whisper "*) echo "Bundling $(BIN) (tags: $$tags).";; \
	*) echo "Bundling $(BIN), built without voice input (tags: $${tags:-none}).";; esac
	$(MKAPP) app -bin $(BIN) -o $(APP_STAGE) -plist Info.plist -version '$(VERSION)' -commits $(COMMITS)
ifeq ($(UNAME),Darwin)
	$(MKAPP) sign -identity '$(CODESIGN_IDENTITY)' $(APP_STAGE)
	rm -rf $(APP)
	@mkdir -p $(dir $(APP))
	ditto --noextattr --norsrc $(APP_STAGE) $(APP)
endif

install: $(if $(filter Darwin,$(UNAME)),build-any,build) ## Install Hark: /Applications/Hark.app on macOS; ~/.local/bin/hark, a launcher and icons on Linux
ifeq ($(UNAME),Darwin)
	@$(MAKE) --no-print-directory bundle
	@$(BIN) quit
	rm -rf $(APPLICATIONS)/Hark.app
	ditto --noextattr --norsrc $(APP_STAGE) $(APPLICATIONS)/Hark.app
	@echo "Installed /Applications/Hark.app: open it from Spotlight; 'hark login-item on' inside it starts it at login."
else
	$(MKAPP) linux-install -bin $(BIN) -prefix '$(PREFIX)'
	@command -v update-desktop-database >/dev/null && update-desktop-database -q '$(PREFIX)/share/applications' || true
	@command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t '$(PREFIX)/share/icons/hicolor' || true
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "Add $(PREFIX)/bin to your PATH to run 'hark' from a terminal.";; esac
endif
