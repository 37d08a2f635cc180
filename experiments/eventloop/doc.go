// Package eventloop decides the event-loop claims W1-W12: does a CPU-bound request in a Lambda
// Web Function's Node.js make the other requests wait, does Go's, and where does a Web
// Function's router send a request while an environment is busy? The package is tests only;
// this file holds its documentation.
//
// Each claim body runs against a target of HTTP endpoints (harness/workload/target). Locally one
// probe process (testdata/probes, or a server of your own that follows docs/protocol.md) stands
// for one execution environment. The pattern is the article's: one or two /cpu that spin for
// CLAIMS_SPIN_MS, the second 50 ms after the first, and a /ping 15 ms after the last, in
// CLAIMS_TRIALS trials CLAIMS_PAUSE_MS apart (harness/workload/pattern).
//
// # Deciding
//
// Waiting is decided on one clock: a /ping waited when its handler started (receivedAt) at or
// after a /cpu of the same process finished (finishedAt), both on the probe's monotonic clock,
// which no network or machine noise can reorder. A trial is evidence only if its /ping reached a
// process already busy with a /cpu and left the client after every /cpu the pattern sends before
// it (a busy machine can send two late requests in either order); with fewer than half the trials
// evidence the verdict is inconclusive. Times are judged as ratios within one run, never as absolute times: W1's /ping
// p50 at most 1% of the spin; W2's within [0.9, 1.2] of the spin less 15 ms, W3's of twice the
// spin less 65 ms; W4's and W5's at most 0.1 of the spin.
//
//   - W1, TestPingOnlyBaseline: /ping alone, on the Node and the Go probe.
//   - W2, W3, TestPingWaitsBehindCPU: a Node /ping waits behind one /cpu, then two.
//   - W4, W5, TestGoPingDoesNotWait: a Go /ping (GOMAXPROCS=2) waits for neither.
//   - W10, TestGoWaitsWithoutPreemption: with GODEBUG=asyncpreemptoff=1 and GOMAXPROCS=1 it does.
//   - W11, TestOffloadedCPUDoesNotStallPing: a /cpu in worker_threads or crypto.pbkdf2 stalls no
//     Node /ping.
//
// TestCatchesBrokenProbes runs each of these against a probe that breaks its claim
// (testdata/probes/broken) and wants fail.
//
// # The Web Functions claims (-tags lambda)
//
// The routing claims (routing_*_test.go) are about several execution environments behind one
// endpoint: on deployed Web Functions, or against the local router (harness/standin/webrouter)
// in `make test` and `make experiments`. Where each answer ran is read from the
// lambda-web-logstream header and the probe's own envId (docs/web-functions.md).
//
//   - W6, TestWebPingAvoidsBusyEnvironment: the /ping goes to another environment in every
//     trial in which one existed.
//   - W7, TestWebPingWaitsWhenEveryEnvironmentBusy: where both environments are busy, a Node
//     /ping beside a started /cpu waited for it every time, a Go /ping never.
//   - W8, TestWebTwoCPUOnOneSide: the frequency of trials with both /cpu in one environment while
//     another existed, with its 95% interval; one such trial shows the claim.
//   - W9, TestWebEnvIDMatchesLogstream: envId and the logstream agree on every pair of answers.
//   - W12, TestWebLowerConcurrencyFewerCoLocated: the share of /ping beside an unfinished /cpu is
//     lower at maxConcurrencyPerEnvironment 1 than at 64, the two 95% intervals apart.
//
// TestCatchesBrokenRouters runs each against a router or probe that breaks it and wants fail.
package eventloop
