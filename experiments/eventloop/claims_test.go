package eventloop

import (
	"fmt"
	"testing"

	"github.com/serverless-claims/claims/harness/claimtest"
)

// The event-loop claims that one local process can settle. Each test runs its body against the
// targets its modes start and writes results/eventloop/<test>.json per subtest.

func TestPingOnlyBaseline(t *testing.T) { claimtest.Run(t, testPingOnlyBaseline, nodeProbe, goProbe) }

func testPingOnlyBaseline(t *testing.T, w *web) { // W1
	c, m := baseline(t, w, cfg)
	c.Check(t, m)
}

func TestPingWaitsBehindCPU(t *testing.T) { claimtest.Run(t, testPingWaitsBehindCPU, nodeProbe) }

func testPingWaitsBehindCPU(t *testing.T, w *web) { // W2, W3
	for _, cpus := range []int{1, 2} {
		t.Run(fmt.Sprintf("cpu=%d", cpus), func(t *testing.T) {
			c, m := nodeWaits(cpus)(t, w, cfg)
			c.Check(t, m)
		})
	}
}

func TestGoPingDoesNotWait(t *testing.T) { claimtest.Run(t, testGoPingDoesNotWait, goProbe) }

func testGoPingDoesNotWait(t *testing.T, w *web) { // W4, W5
	for _, cpus := range []int{1, 2} {
		t.Run(fmt.Sprintf("cpu=%d", cpus), func(t *testing.T) {
			c, m := goDoesNotWait(cpus)(t, w, cfg)
			c.Check(t, m)
		})
	}
}

func TestGoWaitsWithoutPreemption(t *testing.T) {
	claimtest.Run(t, testGoWaitsWithoutPreemption, goNonPreemptiveProbe)
}

func testGoWaitsWithoutPreemption(t *testing.T, w *web) { // W10
	c, m := goWaitsWithoutPreemption(t, w, cfg)
	c.Check(t, m)
}

func TestOffloadedCPUDoesNotStallPing(t *testing.T) {
	claimtest.Run(t, testOffloadedCPUDoesNotStallPing, nodeProbe)
}

func testOffloadedCPUDoesNotStallPing(t *testing.T, w *web) { // W11
	for _, mode := range []string{"worker", "pbkdf2"} {
		for _, cpus := range []int{1, 2} {
			t.Run(fmt.Sprintf("mode=%s/cpu=%d", mode, cpus), func(t *testing.T) {
				c, m := offloaded(mode, cpus)(t, w, cfg)
				c.Check(t, m)
			})
		}
	}
}
