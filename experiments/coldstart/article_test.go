package coldstart

// T1's comparison with the article: its 745 ms handshake at 128 MB was wall time on Lambda's
// arm64, of a Rust function; this run's handshake at 128 MB, on whatever function and machine,
// is put beside it with the figures that say what a difference is made of (the CPU the handshake
// needed, the quota's stretch, the roots, the key exchange, the architecture), and with what the
// first call spent beyond its network set-up.

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/stats"
	"github.com/serverless-claims/claims/harness/lambda/lambdalocal"
	"github.com/serverless-claims/claims/results/family"
)

// articleTLSMs is the article's mean handshake at 128 MB, as the catalog's T1 figure quotes it
// (TestArticleFigureIsTheCatalogs).
const articleTLSMs = 745

// articleArch is the architecture the article's function ran on.
const articleArch = "arm64"

// machineNamer is a platform that names the machine its functions run on; the others run them
// on this machine.
type machineNamer interface {
	Machine() string
}

// machineOf names the machine p's functions run on: its architecture and CPU model.
func machineOf(p lambdaPlatform) string {
	if m, ok := p.(machineNamer); ok {
		return m.Machine()
	}
	return runtime.GOARCH + ", " + results.Fingerprint().CPUModel
}

// compareWithArticle is T1's comparison of quota's handshakes (128 MB) and control's
// (unthrottled) with the article's, on p.
func compareWithArticle(t *testing.T, p lambdaPlatform, quota, control []coldStart) *family.ArticleComparison {
	t.Helper()
	share, err := lambdalocal.ShareForMemory(memoryMB)
	require.NoError(t, err)
	mean := func(runs []coldStart, of func(coldStart) float64) float64 { return stats.Mean(figure(runs, of)) }
	a := &family.ArticleComparison{
		PublishedTLSMs:   articleTLSMs,
		PublishedCPUMs:   articleTLSMs * share,
		TLSMs:            mean(quota, tlsMs),
		TLSCPUMs:         mean(quota, tlsCPUMs),
		ControlTLSMs:     mean(control, tlsMs),
		ControlTLSCPUMs:  mean(control, tlsCPUMs),
		OtherFirstCallMs: mean(quota, func(c coldStart) float64 { return c.First.Answer.TotalMs - c.First.Answer.SetupMs() }),
		Machine:          machineOf(p),
		ArticleArch:      articleArch,
		PeriodMs:         float64(cfg.CPUPeriod.Microseconds()) / 1000,
	}
	a.ExpectedTLSMs = a.TLSCPUMs / share
	var roots []*family.Roots
	for _, c := range quota {
		ans := c.First.Answer
		if a.Curve == "" && ans.TLSMs > 0 {
			a.Curve = ans.Curve
		}
		if a.Stack == nil {
			a.Stack = ans.Stack
		}
		if ans.Roots != nil {
			roots = append(roots, ans.Roots)
		}
	}
	if len(roots) > 0 {
		r := family.Roots{When: roots[0].When, Count: roots[0].Count}
		for _, x := range roots {
			r.Ms += x.Ms / float64(len(roots))
			r.CPUMs += x.CPUMs / float64(len(roots))
		}
		a.Roots = &r
	}
	a.Explanation = explain(a, share, len(quota))
	return a
}

// explain says, sentence by sentence, what a's figures make of the difference from the article.
func explain(a *family.ArticleComparison, share float64, n int) []string {
	stack := "the function"
	if a.Stack != nil {
		stack = fmt.Sprintf("the %s function (%s, %s)", a.Stack.Language, withVersion(a.Stack.TLS, a.Stack.TLSVersion), withVersion(a.Stack.SDK, a.Stack.SDKVersion))
	}
	out := []string{
		fmt.Sprintf("At %d MB %s's first handshake took %.1f ms of wall time and %.1f ms of CPU here (means of %d cold starts); the article's %d ms at that size's share (%.1f%% of a vCPU) holds at most %.1f ms of CPU, %.1f times this one's.",
			memoryMB, stack, a.TLSMs, a.TLSCPUMs, n, articleTLSMs, 100*share, a.PublishedCPUMs, ratio(a.PublishedCPUMs, a.TLSCPUMs)),
		fmt.Sprintf("At a %.1f%% share %.1f ms of CPU take about %.0f ms of wall time, and %.0f ms were measured; unthrottled the same handshake took %.1f ms (%.1f ms of CPU): the quota, not the network, is what makes it slow at %d MB.",
			100*share, a.TLSCPUMs, a.ExpectedTLSMs, a.TLSMs, a.ControlTLSMs, a.ControlTLSCPUMs, memoryMB),
	}
	if a.TLSCPUMs > 0 && a.PublishedCPUMs > cpuFarBelow*a.TLSCPUMs {
		out = append(out, fmt.Sprintf("So the handshake's own work is a small part of what the article's %d ms could hold: what it timed as TLS must have held more work than one handshake (building the connector, loading and parsing roots, the SDK's set-up on first use) or waiting that is not CPU, which this result cannot tell apart.",
			articleTLSMs))
	}
	if a.Roots != nil {
		out = append(out, fmt.Sprintf("The %d roots were loaded at %s in %.1f ms (%.1f ms of CPU), outside the handshake, as the article's rustls connector loaded the system's roots when it was built: their cost is not in either TLS figure.",
			a.Roots.Count, a.Roots.When, a.Roots.Ms, a.Roots.CPUMs))
	} else {
		out = append(out, "The roots are loaded inside the first handshake (Go's crypto/x509 reads the system's roots on first use), so this TLS figure holds their parsing, which the article's did not.")
	}
	if a.Curve != "" {
		out = append(out, fmt.Sprintf("The handshake's key exchange was %s; with the certificate's signature check it is most of a client handshake's CPU (T7's benchmark times each kind).", a.Curve))
	}
	out = append(out, fmt.Sprintf("This machine is %s; the article's function ran on %s, whose cores run the TLS libraries' assembly at another speed, so CPU figures do not carry across one to one; the model's CFS period is %.0f ms, which cuts the wait into other slices but does not change the wall time a given CPU takes at a share.",
		a.Machine, a.ArticleArch, a.PeriodMs))
	other := fmt.Sprintf("Beyond DNS, TCP and TLS the first call took %.1f ms more (the SDK's own work: serialising, signing, loading what it loads on first use, and DynamoDB's answer)", a.OtherFirstCallMs)
	if a.OtherFirstCallMs > a.TLSMs {
		other += ", more than the handshake: on this stack the first call is not almost all TLS, though its network set-up is."
	} else {
		other += ", less than the handshake."
	}
	return append(out, other)
}

// cpuFarBelow is how many times the article's most CPU must exceed this run's handshake CPU for
// the explanation to say that the handshake alone cannot make the article's figure: an order of
// magnitude, beyond what the architecture or a library's version moves a handshake's cost.
const cpuFarBelow = 10

// withVersion is name with version after it, unless name already says it.
func withVersion(name, version string) string {
	if version == "" || strings.Contains(name, version) {
		return name
	}
	return name + " " + version
}

// ratio is a / b, 0 where b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// TestArticleFigureIsTheCatalogs: the handshake T1 compares with is the one the catalog quotes.
func TestArticleFigureIsTheCatalogs(t *testing.T) {
	c, err := catalog.Lookup("T1")
	require.NoError(t, err)
	assert.True(t, strings.Contains(c.Published, fmt.Sprintf("TLS %d ms", articleTLSMs)), "catalog T1 published = %q; want TLS %d ms in it", c.Published, articleTLSMs)
}

// TestExplanationSaysWhereTheFirstCallIsNotAlmostAllTLS: the comparison names the first call's
// work beyond the set-up, and says where it outweighs the handshake.
func TestExplanationSaysWhereTheFirstCallIsNotAlmostAllTLS(t *testing.T) {
	a := &family.ArticleComparison{PublishedTLSMs: articleTLSMs, PublishedCPUMs: articleTLSMs * 128.0 / 1769, TLSMs: 100, TLSCPUMs: 7, OtherFirstCallMs: 300, Machine: "amd64", ArticleArch: articleArch, PeriodMs: 20,
		Roots: &family.Roots{When: "init", Count: 140, Ms: 30, CPUMs: 3}}
	got := strings.Join(explain(a, 128.0/1769, 4), " ")
	assert.Contains(t, got, "not almost all TLS", "explanation = %q; want the first call's other work named as larger than the handshake", got)
	assert.Contains(t, got, "140 roots were loaded at init")
	a.OtherFirstCallMs, a.Roots = 10, nil
	got = strings.Join(explain(a, 128.0/1769, 4), " ")
	assert.NotContains(t, got, "not almost all TLS", "explanation = %q; want no such sentence where the handshake outweighs the rest", got)
	assert.Contains(t, got, "inside the first handshake")
	assert.NotContains(t, got, "small part of what the article", "explanation = %q; want no such sentence where the CPU is within an order of magnitude", got)
	a.TLSCPUMs = 0.4
	got = strings.Join(explain(a, 128.0/1769, 4), " ")
	assert.Contains(t, got, "small part of what the article", "explanation = %q; want the handshake named as too little work for the article's figure", got)
}
