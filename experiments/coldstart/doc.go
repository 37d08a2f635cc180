// Package coldstart decides the cold-start claims T1-T9: what a cold Lambda function's first
// DynamoDB call spends its time on, why its TLS handshake is slow at 128 MB, and how Lambda
// shares out its CPU. The package is tests only; this file holds its documentation.
//
// # Platforms
//
// Each claim body runs on a platform (platform_test.go), once per language of the GetItem
// function (Go, Rust, Node.js, Python: docs/functions.md), a subtest each; where a claim does not
// hold on a language, its test asserts that (refutedOn). Locally, the function runs under
// the Runtime Interface Emulator (its managed runtime's stand-in where it has one), one process
// per cold start, against dynalite behind TLS with a certificate authority made at run time, inside the model of
// Lambda's CPU (harness/lambda/lambdalocal; docs/cpu-model.md explains it and its sources). With
// -tags lambda the same bodies run on AWS Lambda through aws-sdk-go-v2 (live_test.go;
// docs/aws.md), or, with CLAIMS_LIVE_STANDIN=1 as `make test` sets, through the same live code
// against this repository's stand-ins of Lambda's, IAM's and DynamoDB's APIs
// (live_standins_test.go; docs/fidelity.md).
//
// # Claims and how each is decided
//
//   - T1, TestFirstCallDominatedByTLS: in the median cold start at 128 MB the handshake is at
//     least 90% of the CPU that DNS, TCP and TLS cost (its share of their time is a figure: a
//     throttle can fall in the TCP connect), and its mean time at least 5 times that with the
//     machine's CPU.
//   - T2, TestFirstInvocationIsSlow: the first Duration is at least twice Init and 5 times the
//     mean of the same environment's warm invocations.
//   - T3, TestWarmupRemovesHandshake: with a ListTables warm-up in Init, the first call reuses
//     the warm-up's connection wherever the SDK pooled it, the first Duration falls by at least
//     half the cold variant's handshake, and Init + first Duration (the bill) falls.
//   - T4, TestWarmupFailureDoesNotFailInit: with DynamoDB refusing, then stalling, Init ends
//     within the warm-up's bound + 1 s, the first invocation answers the GetItem's error (or
//     succeeds once DynamoDB is back), the second finds the item, in one process throughout.
//   - T5, TestHandshakeScalesWithCPU: the handshake's mean at 128, 256, 512, 1024 and 1769 MB,
//     at least 4 times faster at 1,769 MB than at 128 MB, with the CPU and MB·s each size costs.
//   - T6, TestPhasesAreTheSDKsOwnConnection: the first call's httptrace shows a new connection
//     with a handshake, and the handshakes the traces show equal those the DynamoDB stand-in
//     completed.
//   - T7, BenchmarkTLSHandshake (`make bench`): a benchmark, not a verdict, of one handshake by
//     certificate key, TLS version, key exchange and resumption; TestTLSHandshakeBenchmarkRuns
//     checks that each case negotiates what its name says.
//   - T8, TestThrottleSlices: functions/throttle's busy loop at each size reports its runs and
//     stalls and the CPU the kernel charged: CPU / wall time within ±15% of M/1,769 (at
//     1,769 MB at least 85%), and, where a period is mostly stall (128 to 512 MB), its stall
//     ends on a grid within ±10% of the published 20 ms, never the configured period.
//
// T1, T2, T3 and T5 are decided on means with percentile-bootstrap 95% intervals (why means and
// not medians: results/README.md, "How a verdict is reached"). A check holds or fails only when its whole interval is on one
// side of its bound; otherwise the verdict is inconclusive. A forced cold start is evidence only
// when it was one (an Init Duration, the process's first invocation, one Invoke sent); the others
// are counted by reason in the result (notEvidence), and where they are more than half the claim
// is inconclusive.
//
// CLAIMS_COLD_STARTS sets the cold starts per variant and size (T1 takes twice as many, and the
// Rust function three times as many: coldStartFactor says why), and
// CLAIMS_CPU_PERIOD_MS the model's period. TestCatchesBrokenFunctions runs each claim against a
// function that breaks it (a warm-up with a client of its own for T3; an Init that fails on the
// warm-up's error for T4; a trace off the SDK's call for T6), TestCatchesBrokenCPUModels against
// a model of Lambda's CPU that does (no quota for T1, T2 and T5; the kernel's 100 ms period for
// T8), and each wants fail.
package coldstart
