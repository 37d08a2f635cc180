// Command getitem is the Lambda function of the cold-start claims (T1 to T6): one DynamoDB GetItem
// per invocation with aws-sdk-go-v2, timed phase by phase on the SDK's own connection with
// net/http/httptrace, and answered as JSON. It is built as `bootstrap` for the provided.al2023
// runtime:
//
//	GOOS=linux CGO_ENABLED=0 go build -o bootstrap ./functions/getitem
//
// It has two variants, chosen by CLAIMS_VARIANT, the two functions of the article:
//   - cold: Init builds the client and nothing else, so the first invocation's GetItem pays for
//     DNS, TCP and the TLS handshake;
//   - warm: Init also makes one ListTables (Limit 1) to put a live connection in the SDK's pool,
//     bounded by CLAIMS_WARMUP_TIMEOUT_MS (default 1000); its error is reported in every answer
//     and on stderr, never fatal (claim T4).
//
// Its configuration, all from the environment:
//   - CLAIMS_VARIANT: cold or warm;
//   - CLAIMS_TABLE: the table to read;
//   - CLAIMS_KEY: the item's key as a JSON object, a string value being a DynamoDB S and a number
//     an N: {"pk":"bench","sk":"item-0"};
//   - CLAIMS_CA_FILE: a PEM file of the CAs to trust instead of the system's, loaded in Init;
//     unset means the system's roots, as on Lambda, which Go loads inside the first handshake.
//     The experiments leave it unset and point SSL_CERT_FILE at the system's bundle with the
//     stand-in's CA appended, so that the first handshake does the work it does on Lambda;
//     the function's own tests use it;
//   - CLAIMS_WARMUP_TIMEOUT_MS: the warm-up's bound, in milliseconds;
//   - CLAIMS_WARMUP_OUTAGE: refused or stalled sends the warm-up (only) to an endpoint inside
//     the sandbox, on loopback, that refuses or never answers: claim T4 where DynamoDB itself
//     cannot be taken away, as on Lambda;
//   - AWS_ENDPOINT_URL_DYNAMODB: the endpoint, read by the SDK itself (config.LoadDefaultConfig);
//     unset means DynamoDB's regional endpoint;
//   - AWS_REGION, and the credentials the SDK's default chain finds (AWS_ACCESS_KEY_ID and
//     AWS_SECRET_ACCESS_KEY on Lambda and in tests).
//
// Its deliberately broken builds, for the sensitivity tests: -tags brokentrace (the trace is not on
// the SDK's call, T6), -tags brokenwarmup (a failed warm-up fails Init, T4) and -tags
// brokenwarmclient (the warm-up goes through a client of its own, T3).
//
// A setting that is missing or wrong ends the process with a message on stderr and exit status 2
// before lambda.Start, so that Lambda (or the emulator) reports an Init failure naming it rather
// than a function that fails on every invocation.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
)

// goStart is when this package's variables were initialised: after the Go runtime and every
// imported package's init (the SDK's among them), so later than the process's start. It is the
// fallback, and a finer-grained second view, of the process start that /proc/self/stat gives.
var goStart = time.Now()

// clockTicks is Linux's USER_HZ, the unit of /proc/self/stat's starttime. It is 100 on every
// architecture Lambda runs (x86_64, arm64); reading it would need sysconf, that is cgo.
const clockTicks = 100

func main() {
	s, err := loadSettings(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "getitem: %v\n", err)
		os.Exit(2)
	}
	f, err := initialize(context.Background(), s)
	if err != nil {
		fmt.Fprintf(os.Stderr, "getitem: %v\n", err)
		os.Exit(2)
	}
	if f.warmup != nil && f.warmup.err != "" && failInitOnWarmupError {
		fmt.Fprintf(os.Stderr, "getitem: warm-up failed, failing Init (-tags brokenwarmup): %s\n", f.warmup.err)
		os.Exit(1)
	}
	if f.warmup != nil && f.warmup.err != "" {
		// Reported, not fatal: a warm-up is an optimisation, and a failed Init is retried by
		// Lambda at the cost of a whole new Init (the article's point).
		fmt.Fprintf(os.Stderr, "getitem: warm-up failed (ignored): %s\n", f.warmup.err)
	}
	f.setInit(measureInit(time.Now()))
	lambda.Start(f.handle)
}

// initMeasure is the function's own measure of its Init, which it reports in every answer.
type initMeasure struct {
	// Ms is from the process's start to just before lambda.Start.
	Ms float64
	// From says where the start came from: "proc" (the kernel's starttime, in whole clock
	// ticks of 10 ms, so Ms may be up to 10 ms too long) or "go" (goStart, when /proc could not
	// be read).
	From string
	// GoMs is from goStart to the same end, to the microsecond.
	GoMs float64
}

// measureInit measures Init up to end.
func measureInit(end time.Time) initMeasure {
	m := initMeasure{GoMs: ms(end.Sub(goStart))}
	if d, err := sinceProcessStart(); err == nil {
		m.Ms, m.From = ms(d-time.Since(end)), "proc"
	} else {
		m.Ms, m.From = m.GoMs, "go"
	}
	return m
}

// startTicks reads field 22, starttime, from the text of /proc/PID/stat. The command name
// (field 2) is in parentheses and may hold spaces and parentheses itself, so fields are counted
// from the last ')'.
func startTicks(stat string) (uint64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/self/stat: no command name in %q", stat)
	}
	fields := strings.Fields(stat[i+1:])
	const starttime = 22 - 3 // fields[0] is field 3, the state
	if len(fields) <= starttime {
		return 0, fmt.Errorf("/proc/self/stat: %d fields after the command name; want more than %d", len(fields), starttime)
	}
	return strconv.ParseUint(fields[starttime], 10, 64)
}
