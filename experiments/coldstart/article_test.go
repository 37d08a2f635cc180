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
	"github.com/serverless-claims/claims/results/family/getitem"
	answers "github.com/serverless-claims/claims/results/family/getitem"
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

// articleVariant is the Rust function's variant whose first invocation times a connection of its
// own as the article's did, before the SDK's first call (functions/getitem-rust, article.rs).
const articleVariant = "article"

// compareWithArticle is T1's comparison of quota's handshakes (128 MB) and control's
// (unthrottled) with the article's, on p; with article, the article variant's cold starts at 128
// MB where the function has it, the parts of a first connection as checks of that comparison.
func compareWithArticle(t *testing.T, p lambdaPlatform, quota, control, article []family.ColdStart) *family.ArticleComparison {
	t.Helper()
	share, err := lambdalocal.ShareForMemory(memoryMB)
	require.NoError(t, err)
	mean := func(runs []family.ColdStart, of func(family.ColdStart) float64) float64 {
		return stats.Mean(figure(runs, of))
	}
	a := &family.ArticleComparison{
		PublishedTLSMs:   articleTLSMs,
		PublishedCPUMs:   articleTLSMs * share,
		TLSMs:            mean(quota, tlsMs),
		TLSCPUMs:         mean(quota, tlsCPUMs),
		ControlTLSMs:     mean(control, tlsMs),
		ControlTLSCPUMs:  mean(control, tlsCPUMs),
		OtherFirstCallMs: mean(quota, func(c family.ColdStart) float64 { return c.First.Answer.TotalMs - c.First.Answer.SetupMs() }),
		Machine:          machineOf(p),
		ArticleArch:      articleArch,
		PeriodMs:         float64(p.Settings().CPUPeriod.Microseconds()) / 1000,
	}
	a.ExpectedTLSMs = a.TLSCPUMs / share
	var roots []*getitem.Roots
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
		r := getitem.Roots{When: roots[0].When, Count: roots[0].Count}
		for _, x := range roots {
			r.Ms += x.Ms / float64(len(roots))
			r.CPUMs += x.CPUMs / float64(len(roots))
		}
		a.Roots = &r
	}
	a.Explanation = explain(a, share, len(quota))
	if len(article) > 0 {
		a.Checks = articleChecks(article, share, a.PublishedCPUMs)
		a.Explanation = append(a.Explanation, explainChecks(a.Checks, share)...)
	}
	return a
}

// The parts of a first connection that articleChecks measures, by name.
const (
	partHandTimedTCP   = "hand-timed TCP connect"
	partHandTimedTLS   = "hand-timed TLS handshake, as the article timed it"
	partSDKTLS         = "the SDK's handshake on its own connection after it"
	partSecondTLS      = "a second hand-timed TLS handshake in the same process"
	partFirstExtra     = "the first handshake less the second (the crypto library's first use, the code's first page-in, first-use set-up)"
	partCryptoFirstUse = "the crypto library's first use less its second (in a child forked before the first handshake)"
	partRootsInit      = "loading the roots at Init (before the article's timer)"
	partRootsAgain     = "loading the roots again"
	partAll            = "the hand-timed connection and the roots' first load together"
	partColdProbeTLS   = "a fresh process's handshake, the binary's pages dropped from the page cache first"
	partWarmProbeTLS   = "a fresh process's handshake right after, the binary in the page cache"
	partPageIn         = "the code's first page-in from storage, in the handshake (the first of those less the second)"
	partPageInProcess  = "the code's first page-in from storage, over the fresh process's whole run (the cold one's less the warm one's)"
)

// articleChecks are the means of the article variant's parts over its cold starts whose answer
// carries them, each compared with published, the most CPU the article's figure can hold.
func articleChecks(runs []family.ColdStart, share, published float64) *family.ArticleChecks {
	type part struct{ ms, cpu, minor, major float64 }
	span := func(s answers.Span) part {
		return part{s.Ms, s.CPUMs, float64(s.MinorFaults), float64(s.MajorFaults)}
	}
	less := func(a, b part) part { return part{a.ms - b.ms, a.cpu - b.cpu, a.minor - b.minor, a.major - b.major} }
	plus := func(a, b part) part { return part{a.ms + b.ms, a.cpu + b.cpu, a.minor + b.minor, a.major + b.major} }
	names := []string{partHandTimedTCP, partHandTimedTLS, partSDKTLS, partSecondTLS, partFirstExtra, partCryptoFirstUse, partRootsInit, partRootsAgain, partAll, partColdProbeTLS, partWarmProbeTLS, partPageIn, partPageInProcess}
	sums := map[string]part{}
	counts := map[string]int{}
	add := func(name string, x part) { sums[name], counts[name] = plus(sums[name], x), counts[name]+1 }
	c := &family.ArticleChecks{CanHold: []string{}}
	for _, r := range runs {
		ans := r.First.Answer
		ap := ans.Article
		if ap == nil || ap.HandTimed.Error != "" || ap.SecondHandTimed.Error != "" || ans.Error != "" || ans.Reused {
			continue
		}
		c.ColdStarts++
		first, second := span(ap.HandTimed.TLS), span(ap.SecondHandTimed.TLS)
		add(partHandTimedTCP, span(ap.HandTimed.Connect))
		add(partHandTimedTLS, first)
		add(partSDKTLS, part{ms: ans.TLSMs, cpu: ans.TLSCPUMs})
		add(partSecondTLS, second)
		add(partFirstExtra, less(first, second))
		if ap.CryptoFirstUse != nil && ap.CryptoSecondUse != nil {
			add(partCryptoFirstUse, less(span(*ap.CryptoFirstUse), span(*ap.CryptoSecondUse)))
		}
		all := plus(span(ap.HandTimed.Connect), first)
		if ans.Roots != nil {
			roots := part{ms: ans.Roots.Ms, cpu: ans.Roots.CPUMs}
			add(partRootsInit, roots)
			all = plus(all, roots)
		}
		if ap.RootsAgain != nil {
			add(partRootsAgain, span(ap.RootsAgain.Load))
		}
		add(partAll, all)
		if cold, warm, ok := probes(ap.PageIn); ok {
			add(partColdProbeTLS, span(cold.HandTimed.TLS))
			add(partWarmProbeTLS, span(warm.HandTimed.TLS))
			add(partPageIn, less(span(cold.HandTimed.TLS), span(warm.HandTimed.TLS)))
			// The process's wall time as its parent timed it, to the microsecond; its own total
			// counts from the kernel's start of it, in clock ticks.
			whole := func(p answers.Probe) part { x := span(p.Total); x.ms = p.ProcessMs; return x }
			add(partPageInProcess, less(whole(cold), whole(warm)))
			if c.PageIn == nil {
				c.PageIn = &family.PageInDrop{}
			}
			d := c.PageIn
			d.ColdStarts++
			d.Pages += float64(ap.PageIn.Pages)
			d.ResidentBefore += float64(ap.PageIn.ResidentBefore)
			d.ResidentAfterDrop += float64(ap.PageIn.ResidentAfterDrop)
			d.ResidentAfterCold += float64(ap.PageIn.ResidentAfterCold)
		}
	}
	if d := c.PageIn; d != nil {
		k := float64(d.ColdStarts)
		d.Pages, d.ResidentBefore, d.ResidentAfterDrop, d.ResidentAfterCold = d.Pages/k, d.ResidentBefore/k, d.ResidentAfterDrop/k, d.ResidentAfterCold/k
	}
	for _, name := range names {
		n := counts[name]
		if n == 0 {
			continue
		}
		m := sums[name]
		k := float64(n)
		p := family.ArticlePart{Name: name, Ms: m.ms / k, CPUMs: m.cpu / k, MinorFaults: m.minor / k, MajorFaults: m.major / k}
		p.ExpectedMs = p.CPUMs / share
		p.OfPublishedCPU = ratio(p.CPUMs, published)
		p.CanHold = p.CPUMs > 0 && published <= cpuFarBelow*p.CPUMs
		if name == partPageIn || name == partPageInProcess {
			// Waiting for storage, which the quota does not stretch: its wall time is what it adds.
			p.Waiting = true
			p.CanHold = p.Ms > 0 && articleTLSMs <= cpuFarBelow*p.Ms
		}
		if p.CanHold {
			c.CanHold = append(c.CanHold, name)
		}
		c.Parts = append(c.Parts, p)
	}
	return c
}

// probes are p's two probes where both answered and connected.
func probes(p *answers.PageIn) (cold, warm answers.Probe, ok bool) {
	if p == nil || p.Cold == nil || p.Warm == nil || p.Cold.HandTimed.Error != "" || p.Warm.HandTimed.Error != "" {
		return cold, warm, false
	}
	return *p.Cold, *p.Warm, true
}

// partOf is c's part named name, the zero part where c has none.
func partOf(c *family.ArticleChecks, name string) family.ArticlePart {
	for _, p := range c.Parts {
		if p.Name == name {
			return p
		}
	}
	return family.ArticlePart{}
}

// explainChecks says what c's parts make of the article's figure, and what a live run must
// record to decide what they leave open.
func explainChecks(c *family.ArticleChecks, share float64) []string {
	if c.ColdStarts == 0 {
		return []string{fmt.Sprintf("The %s variant, which times a connection of its own as the article did, answered no cold start with all its parts, so the article's figure is not checked part by part in this run.", articleVariant)}
	}
	tcp, tls, sdk, second := partOf(c, partHandTimedTCP), partOf(c, partHandTimedTLS), partOf(c, partSDKTLS), partOf(c, partSecondTLS)
	extra, crypto, rootsInit, rootsAgain, all := partOf(c, partFirstExtra), partOf(c, partCryptoFirstUse), partOf(c, partRootsInit), partOf(c, partRootsAgain), partOf(c, partAll)
	out := []string{
		fmt.Sprintf("Timed as the article timed its own connection (its ClientConfig and roots built in Init, before the timer), the %s variant's first connection at %d MB took %.1f ms to connect and %.1f ms of wall time and %.2f ms of CPU to shake hands, and the SDK's first call after it made its handshake, on a connection of its own, in %.1f ms (%.2f ms of CPU) (means of %d cold starts; the article: %d ms, then 88 ms).",
			articleVariant, memoryMB, tcp.Ms, tls.Ms, tls.CPUMs, sdk.Ms, sdk.CPUMs, c.ColdStarts, articleTLSMs),
		fmt.Sprintf("What the first connection in the process pays that a second does not: the second hand-timed handshake took %.1f ms (%.2f ms of CPU), so the first paid %.2f ms of CPU more, with %.0f more minor and %.1f more major page faults; the crypto library's first use cost %.2f ms of CPU more than its second; loading the roots took %.2f ms of CPU at Init and %.2f ms again.",
			second.Ms, second.CPUMs, extra.CPUMs, extra.MinorFaults, extra.MajorFaults, crypto.CPUMs, rootsInit.CPUMs, rootsAgain.CPUMs),
	}
	published := 0.0
	if all.OfPublishedCPU > 0 {
		published = all.CPUMs / all.OfPublishedCPU
	}
	if len(c.CanHold) == 0 {
		out = append(out, fmt.Sprintf("None of these parts can hold the article's %d ms at a %.1f%% share, which holds at most %.1f ms of CPU: all of them together, the hand-timed connection with the roots' first load, need %.2f ms of CPU (%.1f%% of it), which the quota stretches to about %.0f ms. Whatever else the article's span held was not this work's CPU at the model's quota: it was waiting that this machine does not reproduce (a page-in from a store slower than this machine's, the network) or a CPU share other than the model's.",
			articleTLSMs, 100*share, published, all.CPUMs, 100*all.OfPublishedCPU, all.ExpectedMs))
	} else {
		out = append(out, fmt.Sprintf("Of these parts, %s can hold the article's %d ms at a %.1f%% share (at most %.1f ms of CPU): the CPU it needs, stretched by the quota (or, for a part that is waiting, its wall time), is within an order of magnitude of the article's figure.",
			strings.Join(c.CanHold, "; "), articleTLSMs, 100*share, published))
	}
	out = append(out, explainPageIn(c, tls))
	return append(out, "To decide the rest, a live run must record, for the hand-timed connection, the probes' and the SDK's first call, each part's wall time beside its CPU (the CPU over the share is what the quota explains; the wall time beyond it is waiting), the major page faults over each, and the periods the platform throttled.")
}

// explainPageIn says what the page-in probes measured beside the function's own first
// handshake, tls, or why they measured nothing.
func explainPageIn(c *family.ArticleChecks, tls family.ArticlePart) string {
	d := c.PageIn
	if d == nil {
		return fmt.Sprintf("The page-in probes answered in no cold start, so the code's first page-in from a cold page cache is not measured here; the function's own first handshake, its code in the page cache, had %.1f major page faults.", tls.MajorFaults)
	}
	cold, warm, inTLS, whole := partOf(c, partColdProbeTLS), partOf(c, partWarmProbeTLS), partOf(c, partPageIn), partOf(c, partPageInProcess)
	cached := fmt.Sprintf("of the binary's %.0f pages, %.0f were in the page cache before the drop, %.0f after it and %.0f after the cold probe", d.Pages, d.ResidentBefore, d.ResidentAfterDrop, d.ResidentAfterCold)
	if d.ResidentAfterDrop >= d.ResidentBefore || whole.MajorFaults <= 0 {
		return fmt.Sprintf("The page-in probes found nothing to read from storage (%s; %.1f more major page faults in the cold probe than in the warm one), so the code's first page-in is not measured here: a file system that keeps files in memory does not drop them, and the kernel keeps every page a process maps.",
			cached, whole.MajorFaults)
	}
	s := fmt.Sprintf("With the binary's pages dropped from the page cache (%s), a fresh process had %+.1f major page faults against one right after it (each a read from storage, with the read-around of many pages) and took %+.1f ms of wall time and %+.2f ms of CPU against it; in its handshake the difference was %+.1f major faults and %+.1f ms (%.1f ms cold, %.1f ms warm), the rest of the reads coming before it, where the read-around of the process's first faults reads code ahead (means of %d cold starts).",
		cached, whole.MajorFaults, whole.Ms, whole.CPUMs, inTLS.MajorFaults, inTLS.Ms, cold.Ms, warm.Ms, d.ColdStarts)
	switch {
	case whole.CanHold:
		return s + fmt.Sprintf(" Over the whole process the page-in is within an order of magnitude of the article's %d ms: a first page-in from a store somewhat slower than this machine's can make the article's figure, where the article's timer held it.", articleTLSMs)
	case whole.Ms > 0:
		return s + fmt.Sprintf(" To make the article's %d ms even over the whole process, the page-in would need a store about %.0f times slower than this machine's.", articleTLSMs, articleTLSMs/whole.Ms)
	default:
		return s + fmt.Sprintf(" Over the whole process the page-in is lost in the quota's noise here: read from this machine's storage, a first page-in adds no time this run can tell from none, so only a store far slower than this machine's could make the article's %d ms of it.", articleTLSMs)
	}
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
		Roots: &getitem.Roots{When: "init", Count: 140, Ms: 30, CPUMs: 3}}
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

// articleStart is a cold start of the article variant whose hand-timed handshake needed tlsCPU ms
// of CPU (and its second half of that), with the roots loaded at Init for 1 ms of CPU.
func articleStart(tlsCPU float64) family.ColdStart {
	var c family.ColdStart
	c.First.Answer.TLSMs, c.First.Answer.TLSCPUMs = 2, 0.4
	c.First.Answer.Roots = &getitem.Roots{When: "init", Count: 140, Ms: 3, CPUMs: 1}
	c.First.Answer.Article = &answers.ArticleParts{
		HandTimed:       answers.HandTimed{Connect: answers.Span{Ms: 0.2, CPUMs: 0.1}, TLS: answers.Span{Ms: tlsCPU / 0.07, CPUMs: tlsCPU, MinorFaults: 30}},
		SecondHandTimed: answers.HandTimed{TLS: answers.Span{Ms: tlsCPU / 0.14, CPUMs: tlsCPU / 2, MinorFaults: 10}},
		CryptoFirstUse:  &answers.Span{Ms: 0.3, CPUMs: 0.2},
		CryptoSecondUse: &answers.Span{Ms: 0.1, CPUMs: 0.1},
		RootsAgain:      &answers.RootsAgain{Count: 140, Load: answers.Span{Ms: 2, CPUMs: 0.8}},
		PageIn:          pageIn(10, 4),
	}
	return c
}

// pageIn is what the probes measure where the cold one's handshake took coldMs with majorFaults
// reads from storage, and the warm one's 2 ms with none.
func pageIn(coldMs float64, majorFaults int64) *answers.PageIn {
	probe := func(ms float64, major int64) *answers.Probe {
		return &answers.Probe{ProcessMs: 20 + 2*ms, HandTimed: answers.HandTimed{TLS: answers.Span{Ms: ms, CPUMs: 0.6, MajorFaults: major}},
			Total: answers.Span{Ms: 30, CPUMs: 5, MajorFaults: 3 * major}}
	}
	return &answers.PageIn{Pages: 1000, ResidentBefore: 900, ResidentAfterDrop: 300, ResidentAfterCold: 850, Cold: probe(coldMs, majorFaults), Warm: probe(2, 0)}
}

// TestArticleChecksDecideFromTheParts: a part can hold the article's figure only where its CPU is
// within an order of magnitude of what the figure holds at the share, and the explanation says
// which, or that none can; starts whose hand-timed connection failed are left out.
func TestArticleChecksDecideFromTheParts(t *testing.T) {
	share := 128.0 / 1769
	published := articleTLSMs * share
	failed := articleStart(0.5)
	failed.First.Answer.Article.HandTimed.Error = "connecting to 127.0.0.1:1 by hand: refused"
	c := articleChecks([]family.ColdStart{articleStart(0.5), articleStart(0.7), failed}, share, published)
	assert.Equal(t, 2, c.ColdStarts, "cold starts = %d; want 2 (the failed one left out)", c.ColdStarts)
	assert.Empty(t, c.CanHold, "canHold = %v; want none for handshakes of well under a millisecond of CPU", c.CanHold)
	tls := partOf(c, partHandTimedTLS)
	assert.InDelta(t, 0.6, tls.CPUMs, 1e-9, "hand-timed TLS CPU = %v; want the mean 0.6", tls.CPUMs)
	assert.InDelta(t, 0.3, partOf(c, partFirstExtra).CPUMs, 1e-9, "first less second = %v; want 0.3", partOf(c, partFirstExtra).CPUMs)
	assert.InDelta(t, 20, partOf(c, partFirstExtra).MinorFaults, 1e-9)
	assert.InDelta(t, 0.1, partOf(c, partCryptoFirstUse).CPUMs, 1e-9)
	assert.InDelta(t, 0.1+0.6+1, partOf(c, partAll).CPUMs, 1e-9, "all = %v; want connect + TLS + Init's roots", partOf(c, partAll).CPUMs)
	got := strings.Join(explainChecks(c, share), " ")
	assert.Contains(t, got, "None of these parts can hold the article's", "explanation = %q", got)
	assert.Contains(t, got, "a live run must record", "explanation = %q", got)

	// A handshake of a third of what the figure holds can make it, within the architecture's reach.
	c = articleChecks([]family.ColdStart{articleStart(published / 3)}, share, published)
	assert.Contains(t, c.CanHold, partHandTimedTLS, "canHold = %v; want the hand-timed handshake", c.CanHold)
	assert.NotContains(t, c.CanHold, partRootsAgain, "canHold = %v; want not the roots' second load", c.CanHold)
	got = strings.Join(explainChecks(c, share), " ")
	assert.Contains(t, got, partHandTimedTLS+"; ", "explanation = %q; want the part named as able to hold the figure", got)

	got = strings.Join(explainChecks(articleChecks([]family.ColdStart{failed}, share, published), share), " ")
	assert.Contains(t, got, "answered no cold start with all its parts", "explanation = %q", got)
}

// TestPageInIsWeighedByItsWait: the code's first page-in is the cold probe's less the warm one's,
// in the handshake and over the whole process, and it can hold the article's figure by its wall
// time (waiting the quota does not stretch), not its CPU; where the drop left nothing to read,
// or no probe answered, the explanation says it is not measured.
func TestPageInIsWeighedByItsWait(t *testing.T) {
	share := 128.0 / 1769
	published := articleTLSMs * share
	c := articleChecks([]family.ColdStart{articleStart(0.5)}, share, published)
	inTLS, whole := partOf(c, partPageIn), partOf(c, partPageInProcess)
	assert.InDelta(t, 8, inTLS.Ms, 1e-9, "page-in in the handshake = %v ms; want the cold probe's 10 less the warm one's 2", inTLS.Ms)
	assert.InDelta(t, 16, whole.Ms, 1e-9, "page-in over the process = %v ms; want the cold process's 40 less the warm one's 24", whole.Ms)
	assert.InDelta(t, 12, whole.MajorFaults, 1e-9, "page-in's major faults over the process")
	assert.True(t, inTLS.Waiting && whole.Waiting, "page-in waiting = %v, %v; want true", inTLS.Waiting, whole.Waiting)
	assert.Empty(t, c.CanHold, "canHold = %v; want none for a page-in of 16 ms against %d ms", c.CanHold, articleTLSMs)
	require.NotNil(t, c.PageIn)
	assert.Equal(t, 600.0, c.PageIn.ResidentBefore-c.PageIn.ResidentAfterDrop, "pages dropped")
	got := strings.Join(explainChecks(c, share), " ")
	assert.Contains(t, got, "took +16.0 ms of wall time", "explanation = %q", got)
	assert.Contains(t, got, "in its handshake the difference was +4.0 major faults and +8.0 ms", "explanation = %q", got)
	assert.Contains(t, got, "about 47 times slower", "explanation = %q", got)

	slow := articleStart(0.5)
	slow.First.Answer.Article.PageIn = pageIn(102, 40)
	c = articleChecks([]family.ColdStart{slow}, share, published)
	assert.Contains(t, c.CanHold, partPageIn, "canHold = %v; want the page-in, whose 100 ms are within an order of magnitude of %d ms", c.CanHold, articleTLSMs)
	assert.Contains(t, c.CanHold, partPageInProcess, "canHold = %v", c.CanHold)
	assert.NotContains(t, c.CanHold, partColdProbeTLS, "canHold = %v; want not the cold probe's handshake, whose CPU is 0.6 ms", c.CanHold)
	got = strings.Join(explainChecks(c, share), " ")
	assert.Contains(t, got, "can make the article's figure, where the article's timer held it", "explanation = %q", got)

	fast := articleStart(0.5)
	fast.First.Answer.Article.PageIn = pageIn(1.9, 4)
	got = strings.Join(explainChecks(articleChecks([]family.ColdStart{fast}, share, published), share), " ")
	assert.Contains(t, got, "lost in the quota's noise", "explanation = %q; want a page-in no slower than the warm run named as none this run can tell", got)

	inMemory := articleStart(0.5)
	inMemory.First.Answer.Article.PageIn = pageIn(2.1, 0)
	got = strings.Join(explainChecks(articleChecks([]family.ColdStart{inMemory}, share, published), share), " ")
	assert.Contains(t, got, "the code's first page-in is not measured here", "explanation = %q", got)

	none := articleStart(0.5)
	none.First.Answer.Article.PageIn = nil
	none.First.Answer.Article.PageInError = "mincore on the binary: not supported"
	c = articleChecks([]family.ColdStart{none}, share, published)
	assert.Nil(t, c.PageIn, "pageIn = %+v; want none where no probe answered", c.PageIn)
	got = strings.Join(explainChecks(c, share), " ")
	assert.Contains(t, got, "answered in no cold start", "explanation = %q", got)
}
