// Package threadpool decides the claims P1-P11 of the article "the four letters at the end of a
// name": where Node.js's "async" work really runs, how many slots libuv's pool has, what shares
// them, and what blocks the event loop. The package is tests only; this file holds its
// documentation.
//
// Each test starts the lab programs in testdata/threadpool on every Node.js runtime available,
// as subtests (node24 from `make setup`, and the machine's own node when its major version
// differs), so results show versions side by side; CLAIMS_NODE_RUNTIMES=first keeps to Node 24,
// except for P5, which is decided across runtimes. The sizes are the article's (150 ms pbkdf2
// jobs, 8 MB for gzip, 12.9 MB of JSON).
//
// # Deciding
//
// Slots are counted by ordering: a tiny pool job queued behind k jobs that each hold a slot
// without using the CPU (blocked opening a FIFO) either completes at once or only once they are
// let go, the order of two callbacks on the one loop thread, which no load on the machine can
// change. Loop blocking is measured by a 1 ms timer re-armed on the loop: its longest gap, less
// 1 ms, is the time the loop could run nothing. Times are ratios within one trial or run.
//
//   - P3, P4, P11, TestPoolSlots: the smallest k that makes the tiny job wait is the slot count,
//     at the default size, UV_THREADPOOL_SIZE=8 and 2000; above 1024 the pool's threads in
//     /proc/self/task.
//   - P3, P4, TestPoolWaves: ratios of the jobs' end times in one trial, pool sizes alternating
//     across trials.
//   - P5, TestPoolSizeFromInsideProgram: the slot count of a CommonJS and an ES-module entry that
//     set UV_THREADPOOL_SIZE=8 on their first line, on every runtime.
//   - P1, TestSyncBlocksLoop, and P9, TestGzipSyncVsAsync: the CPU each way costs (each async run
//     against the Sync run just before it, median of runs), and the loop's longest gap over the
//     call as a share of the work: at least 0.9 for Sync, at most 0.2 for async.
//   - P2, P7, TestThreadpoolAPITable: with every slot busy, does each API's call complete before
//     a slot frees? One check per row.
//   - P6, P7, TestSharedPoolInterference: a file read under a full pool of gzip streams (P6) or
//     of lookups held by a slow resolver (P7, testdata/threadpool/slowdns) completes only after
//     one has, in every trial, and in a minority with 16 slots (the control); its latency
//     against the read alone.
//   - P8, TestJSONParseBlocksLoop: the loop's longest gap over JSON.parse is at least 0.7 of the
//     parse's time (median of runs).
//   - P10, TestSyncOnRequestPath: /ping latency of a server that does a Sync call at start-up
//     against one that does it on the request path, in one run.
//
// P7's test asserts a refutation: libuv runs getaddrinfo as slow I/O on at most half the pool's
// threads, so file reads keep the other half. Its result says fail with that evidence, and the
// test passes while the claim stays refuted and fails the day a runtime makes it hold (with one
// slot, the sensitivity case, it does). TestCatchesBrokenLabs runs each claim against a lab that
// breaks it (a pool of the wrong size, Sync work moved to a worker with LAB_BROKEN=sync-off-loop,
// an async read on the request path) and wants fail.
package threadpool
