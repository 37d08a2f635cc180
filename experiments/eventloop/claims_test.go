package eventloop

import (
	"fmt"
	"testing"

	"github.com/serverless-claims/claims/harness/claim/claimtest"
)

// The event-loop claims that one local process can settle. Each test runs its body against the
// targets its modes start and writes results/eventloop/<test>.json per subtest.

func TestPingOnlyBaseline(t *testing.T) { claimtest.Run(t, testPingOnlyBaseline, nodeProbe, goProbe) }

func testPingOnlyBaseline(t *testing.T, w *web) { experiment(baseline).check(t, w) } // W1

func TestPingWaitsBehindCPU(t *testing.T) { claimtest.Run(t, testPingWaitsBehindCPU, nodeProbe) }

func testPingWaitsBehindCPU(t *testing.T, w *web) { checkEachCPUCount(t, w, nodeWaits) } // W2, W3

func TestGoPingDoesNotWait(t *testing.T) { claimtest.Run(t, testGoPingDoesNotWait, goProbe) }

func testGoPingDoesNotWait(t *testing.T, w *web) { checkEachCPUCount(t, w, goDoesNotWait) } // W4, W5

func TestGoWaitsWithoutPreemption(t *testing.T) {
	claimtest.Run(t, testGoWaitsWithoutPreemption, goNonPreemptiveProbe)
}

func testGoWaitsWithoutPreemption(t *testing.T, w *web) { // W10
	experiment(goWaitsWithoutPreemption).check(t, w)
}

func TestOffloadedCPUDoesNotStallPing(t *testing.T) {
	claimtest.Run(t, testOffloadedCPUDoesNotStallPing, nodeProbe)
}

func testOffloadedCPUDoesNotStallPing(t *testing.T, w *web) { // W11
	for _, mode := range []string{"worker", "pbkdf2"} {
		for _, cpus := range []int{1, 2} {
			t.Run(fmt.Sprintf("mode=%s/cpu=%d", mode, cpus), func(t *testing.T) { offloaded(mode, cpus).check(t, w) })
		}
	}
}

// check measures e on w with the run's settings and asserts its claim.
func (e experiment) check(t *testing.T, w *web) {
	t.Helper()
	c, m := e(t, w, cfg)
	c.Check(t, m)
}

// checkEachCPUCount checks e with one /cpu in flight and with two, as subtests cpu=1 and cpu=2.
func checkEachCPUCount(t *testing.T, w *web, e func(cpus int) experiment) {
	t.Helper()
	for _, cpus := range []int{1, 2} {
		t.Run(fmt.Sprintf("cpu=%d", cpus), func(t *testing.T) { e(cpus).check(t, w) })
	}
}
