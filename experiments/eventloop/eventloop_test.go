package eventloop

import (
	"fmt"
	"testing"
)

// The W claims of shared/CLAIMS.md that one local process can settle. Each subtest starts its
// own probe and writes results/eventloop/<test>.json.

func TestPingOnlyBaseline(t *testing.T) { // W1
	t.Run("node", func(t *testing.T) {
		check(t, baseline("p50 4 ms; p95/max 12/37 ms"), startNode(t))
	})
	t.Run("go", func(t *testing.T) {
		check(t, baseline("p50 4 ms; p95/max 6/7 ms"), startGo(t, map[string]string{"GOMAXPROCS": "2"}))
	})
}

func TestPingWaitsBehindCPU(t *testing.T) { // W2, W3
	t.Run("cpu=1", func(t *testing.T) { check(t, nodeWaits(1), startNode(t)) })
	t.Run("cpu=2", func(t *testing.T) { check(t, nodeWaits(2), startNode(t)) })
}

// goPreemptive is the article's Go setting: GOMAXPROCS as the environment's 2 vCPUs.
var goPreemptive = map[string]string{"GOMAXPROCS": "2"}

func TestGoPingDoesNotWait(t *testing.T) { // W4, W5
	t.Run("cpu=1", func(t *testing.T) { check(t, goDoesNotWait(1), startGo(t, goPreemptive)) })
	t.Run("cpu=2", func(t *testing.T) { check(t, goDoesNotWait(2), startGo(t, goPreemptive)) })
}

// goNonPreemptive takes away both ways the Go runtime has to serve /ping during a spin: a second
// P, and asynchronous preemption of a loop that makes no function call.
var goNonPreemptive = map[string]string{"GOMAXPROCS": "1", "GODEBUG": "asyncpreemptoff=1"}

func TestGoWaitsWithoutPreemption(t *testing.T) { // W10
	check(t, goWaitsWithoutPreemption(), startGo(t, goNonPreemptive))
}

func TestOffloadedCPUDoesNotStallPing(t *testing.T) { // W11
	for _, mode := range []string{"worker", "pbkdf2"} {
		for _, cpus := range []int{1, 2} {
			t.Run(fmt.Sprintf("mode=%s/cpu=%d", mode, cpus), func(t *testing.T) {
				check(t, offloaded(mode, cpus), startNode(t))
			})
		}
	}
}
