// Command throttle is the Lambda function of claim T8, which measures the CPU a function gets: on
// each invocation it runs a busy loop for the time the event asks, reading the monotonic clock as
// fast as it can, and answers with the runs and stalls it saw. A stall is a gap between two reads
// long enough that the thread cannot have been running (the CPU quota ran out, or the scheduler
// gave the CPU to something else); a run is the time between two stalls. It is built like
// functions/getitem, as `bootstrap` for the provided.al2023 runtime:
//
//	GOOS=linux CGO_ENABLED=0 go build -o bootstrap ./functions/throttle
//
// The event is {"busyMs": 1000, "gapMs": 0.5}: how long to loop (1 to 60000 ms) and the shortest
// gap that counts as a stall (0.05 to 100 ms; 0.5 unless given). A bad event is answered with a
// Lambda error naming the field. The function needs no configuration.
package main

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/serverless-claims/claims/results/family/throttle"
)

func main() {
	f := &function{pid: os.Getpid(), numCPU: runtime.NumCPU()}
	f.memoryMB, _ = strconv.Atoi(os.Getenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE"))
	lambda.Start(f.handle)
}

// function is the initialised function: what every answer reports besides the loop.
type function struct {
	pid      int
	numCPU   int
	memoryMB int
	calls    atomic.Int64
}

// handle checks the event and runs the loop.
func (f *function) handle(_ context.Context, ev event) (throttle.Loop, error) {
	n := f.calls.Add(1)
	busy, gap, err := ev.durations()
	if err != nil {
		return throttle.Loop{}, err
	}
	answer := observe(busy, gap)
	answer.Invocation, answer.Pid, answer.NumCPU, answer.MemoryMB = int(n), f.pid, f.numCPU, f.memoryMB
	return answer, nil
}
