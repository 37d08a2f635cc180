// Command probe is the Go probe of the claims repository: an HTTP/1.1 server that follows the
// probe protocol in docs/protocol.md, so the event-loop experiments can ask whether a CPU-bound
// request stalls the others in one Go process.
//
// It binds AWS_LAMBDA_HTTP_ENDPOINT (host:port, the Lambda Web Functions contract) when set, else
// 127.0.0.1:0, and prints one line `READY {json}` when it listens.
//
//	GET /ping        answers at once
//	GET /cpu?ms=N    spins the CPU for about N ms in a loop with no function call in it
//
// Every JSON answer carries envId, pid, receivedAt and finishedAt, the last two in milliseconds
// on this process's monotonic clock.
//
// The spin loop calls no function, so nothing but asynchronous preemption (Go 1.14+) can take
// the CPU away from it: that is what claims W5 and W10 turn on. Because such a loop cannot read
// the clock, the probe calibrates it at start (iterations per millisecond) and spins a count.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"time"
	_ "unsafe" // for go:linkname
)

// maxSpinMs caps /cpu so that one request cannot hold the probe for more than a minute.
const maxSpinMs = 60_000

var (
	start = nanotime()
	envID = newEnvID()
)

// nanotime is the runtime's monotonic clock, the one time.Now reads. It is nosplit: calling it
// gives the scheduler no preemption point.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// sinceStartMs is the process's monotonic clock in milliseconds; answers of one process compare.
//
// It is nosplit, like nanotime, so that the time a spin ended is read before anything can
// preempt the goroutine: with GOMAXPROCS=1 a preemption request that waited out the spin takes
// effect at the first function prologue after it, and a /ping handled then must still be seen to
// start after the spin finished (claim W10).
//
//go:nosplit
func sinceStartMs() float64 { return float64(nanotime()-start) / 1e6 }

func newEnvID() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		log.Fatalf("probe: envId: %v", err)
	}
	return hex.EncodeToString(b)
}

func main() {
	log.SetFlags(0)
	itersPerMs := calibrateSpin()

	addr := os.Getenv("AWS_LAMBDA_HTTP_ENDPOINT")
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatalf("probe: listen %s: %v", addr, err)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /ping", func(w http.ResponseWriter, r *http.Request) {
		receivedAt := sinceStartMs()
		answer(w, http.StatusOK, map[string]any{"path": "/ping"}, receivedAt, sinceStartMs())
	})
	mux.HandleFunc("GET /cpu", func(w http.ResponseWriter, r *http.Request) {
		receivedAt := sinceStartMs()
		ms, err := spinMs(r)
		if err != nil {
			answerError(w, http.StatusBadRequest, err.Error(), receivedAt)
			return
		}
		sink += spin(uint64(ms) * itersPerMs)
		finishedAt := sinceStartMs()
		answer(w, http.StatusOK, map[string]any{"path": "/cpu", "ms": ms, "mode": "spin"}, receivedAt, finishedAt)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		receivedAt := sinceStartMs()
		answerError(w, http.StatusNotFound,
			fmt.Sprintf("no route for %s %s: the probe serves GET /ping and GET /cpu?ms=N", r.Method, r.URL.Path),
			receivedAt)
	})

	ready, err := json.Marshal(map[string]any{
		"addr":        ln.Addr().String(),
		"envId":       envID,
		"pid":         os.Getpid(),
		"runtime":     "go",
		"version":     runtime.Version(),
		"gomaxprocs":  runtime.GOMAXPROCS(0),
		"numCPU":      runtime.NumCPU(),
		"godebug":     os.Getenv("GODEBUG"),
		"spinItersMs": itersPerMs,
	})
	if err != nil {
		log.Fatalf("probe: READY: %v", err)
	}
	fmt.Printf("READY %s\n", ready)

	srv := &http.Server{Handler: wrap(mux), ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}

// spinMs reads and checks the ms parameter of /cpu (and refuses any mode but the one it has).
func spinMs(r *http.Request) (int, error) {
	q := r.URL.Query()
	if mode := q.Get("mode"); mode != "" && mode != "spin" {
		return 0, fmt.Errorf("mode %q is not supported: the Go probe has only mode=spin", mode)
	}
	raw, ok := q["ms"]
	if !ok || len(raw) != 1 {
		return 0, fmt.Errorf("ms is required once: an integer from 1 to %d", maxSpinMs)
	}
	ms, err := strconv.Atoi(raw[0])
	if err != nil || !allDigits(raw[0]) || ms < 1 || ms > maxSpinMs {
		return 0, fmt.Errorf("ms = %q: want an integer from 1 to %d", raw[0], maxSpinMs)
	}
	return ms, nil
}

// allDigits refuses what Atoi would take but the protocol does not: a sign, as in "+5".
func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// answer writes the protocol's JSON answer.
func answer(w http.ResponseWriter, status int, body map[string]any, receivedAt, finishedAt float64) {
	body["envId"] = envID
	body["pid"] = os.Getpid()
	body["receivedAt"] = receivedAt
	body["finishedAt"] = finishedAt
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(body); err != nil {
		log.Printf("probe: write answer: %v", err)
	}
}

func answerError(w http.ResponseWriter, status int, msg string, receivedAt float64) {
	answer(w, status, map[string]any{"error": msg}, receivedAt, sinceStartMs())
}
