# switchboard developer and CI entry points. `make test` is what .ci/run runs.

SHELL := /bin/bash
GO ?= go
# FUZZTIME is how long each fuzz target runs, in `make fuzz` and in the short
# pass at the end of `make test`: make fuzz FUZZTIME=5m
FUZZTIME ?= 10s

PEERS := test/peers
# Written after a complete `npm ci`; npm ci deletes node_modules first, so a
# failed or interrupted install leaves no stamp and is redone.
PEERS_STAMP := $(PEERS)/node_modules/.switchboard-installed

# internal/peers finds the npm peers here (PEERS.md).
export SWITCHBOARD_PEERS_DIR := $(CURDIR)/$(PEERS)/node_modules

.PHONY: all peers test bench build fuzz

all: build

peers: $(PEERS_STAMP)

$(PEERS_STAMP): $(PEERS)/package.json $(PEERS)/package-lock.json
	cd $(PEERS) && npm ci --no-audit --no-fund
	touch $@

test: peers
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 15m ./...
	$(fuzz_all)

bench: peers
	$(GO) test -run '^$$' -bench . -benchtime 2000x ./...

build:
	$(GO) build -o bin/switchboard ./cmd/switchboard

fuzz:
	$(fuzz_all)

# fuzz_all runs every Fuzz target in the repository, one at a time (go test
# fuzzes one target of one package per run), so new targets join by themselves.
define fuzz_all
@set -euo pipefail; \
files=$$(grep -rl 'func Fuzz' --include='*_test.go' --exclude-dir=node_modules --exclude-dir=testdata --exclude-dir=.git . | sort || true); \
for file in $$files; do \
	for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*\*testing\.F).*/\1/p' "$$file"); do \
		echo "fuzz $$(dirname "$$file") $$name for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) "$$(dirname "$$file")"; \
	done; \
done
endef
