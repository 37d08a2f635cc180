// Command fn is the Lambda function of harness/standin/lambdaapi's tests: it answers the event with its
// pid, memory size and how many invocations its process has served (1 on the first, so a test
// can tell a warm invoke that passes for a cold one), as harness/lambda/lambdalocal's echo does, and on
// request sleeps first (to run past its Timeout), fails its handler, or ends its process, so that
// the stand-in's answers to each are checked against a function that really does it. It measures
// its own Init, from its package's initialisation to the call that starts asking for events, and
// answers it as initMs; CLAIMS_INIT_SLEEP_MS makes that Init sleep so long first.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
)

type event struct {
	SleepMs int    `json:"sleepMs"`
	Fail    string `json:"fail"`
	Exit    bool   `json:"exit"`
}

type answer struct {
	Event       json.RawMessage `json:"event"`
	PID         int             `json:"pid"`
	MemoryMB    string          `json:"memoryMB"`
	Invocations int64           `json:"invocations"`
	InitMs      float64         `json:"initMs"`
}

// initStart is when the process's own code began: package variables are set before main, after
// the Go runtime's start, so the function's measure of its Init is within the platform's.
var initStart = time.Now()

// invocations counts the invocations this process has begun.
var invocations atomic.Int64

func main() {
	if ms, err := strconv.Atoi(os.Getenv("CLAIMS_INIT_SLEEP_MS")); err == nil && ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	initMs := float64(time.Since(initStart)) / float64(time.Millisecond)
	lambda.Start(func(_ context.Context, raw json.RawMessage) (answer, error) {
		n := invocations.Add(1)
		var e event
		_ = json.Unmarshal(raw, &e)
		time.Sleep(time.Duration(e.SleepMs) * time.Millisecond)
		if e.Exit {
			os.Exit(2)
		}
		if e.Fail != "" {
			return answer{}, errors.New(e.Fail)
		}
		return answer{Event: raw, PID: os.Getpid(), MemoryMB: os.Getenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE"), Invocations: n, InitMs: initMs}, nil
	})
}
