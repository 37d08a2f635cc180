package report

// T1's comparison with the article: its handshake at 128 MB beside this run's, as tables.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/results/family"
)

// coldArticleTable is T1's handshake at 128 MB beside the article's (family.ArticleComparison):
// the article's wall time and the most CPU it can have held, this run's wall time and CPU, the
// wall time the quota makes of that CPU, the same function unthrottled, the roots' loading where
// the function times it apart, and the first call beyond its set-up; under it the key exchange
// and the machines, and the result's own sentences on what the difference is made of. The
// article measured wall time only, so the CPU columns are what tell a slower handshake from a
// more throttled one.
func coldArticleTable(a family.ArticleComparison) *Table {
	const none = "—"
	t := &Table{
		Title: "The handshake at 128 MB beside the article's",
		Head:  []string{"", "wall time", "CPU"},
		Rows: [][]string{
			{"the article's (mean)", coldArticleMs(a.PublishedTLSMs), "at most " + coldArticleMs(a.PublishedCPUMs)},
			{"this run's (mean)", coldArticleMs(a.TLSMs), coldArticleMs(a.TLSCPUMs)},
			{"expected from that CPU at the share", coldArticleMs(a.ExpectedTLSMs), none},
			{"unthrottled", coldArticleMs(a.ControlTLSMs), coldArticleMs(a.ControlTLSCPUMs)},
		},
		Notes: a.Explanation,
	}
	if r := a.Roots; r != nil {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%d roots, loaded at %s (not in the handshake)", r.Count, r.When), coldArticleMs(r.Ms), coldArticleMs(r.CPUMs)})
	} else {
		t.Rows = append(t.Rows, []string{"roots", "in the handshake", "in the handshake"})
	}
	t.Rows = append(t.Rows, []string{"the first call beyond DNS, TCP and TLS", coldArticleMs(a.OtherFirstCallMs), none})
	var parts []string
	if a.Curve != "" {
		kx := "Key exchange " + a.Curve
		if neg := strings.TrimSpace(strings.Join([]string{a.TLSVersion, a.CipherSuite}, " ")); neg != "" {
			kx += " (" + neg + ")"
		}
		parts = append(parts, kx)
	}
	if a.Machine != "" {
		m := "measured on " + a.Machine
		if a.ArticleArch != "" {
			m += ", the article's on " + a.ArticleArch
		}
		parts = append(parts, m)
	}
	if a.PeriodMs > 0 {
		parts = append(parts, fmt.Sprintf("the CPU model's period %s", coldArticleMs(a.PeriodMs)))
	}
	if len(parts) > 0 {
		parts[0] = strings.ToUpper(parts[0][:1]) + parts[0][1:]
		t.Caption = strings.Join(parts, "; ") + "."
	}
	return t
}

// coldArticleMs writes a time of the article's comparison: whole ms from 100 ms up, as the
// article's 745 ms, a tenth below, where a CPU figure's differences are.
func coldArticleMs(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f ms", v)
	}
	return fmt.Sprintf("%.1f ms", v)
}

// coldArticleTables are the article comparisons of s's coldstart.phases results (T1's), each
// with its result, for the Markdown summary, which draws no chart. A result whose summary does
// not read is left out: the page reports it in its figures' place.
func coldArticleTables(s Set) []entryTable {
	var out []entryTable
	for _, e := range s.Entries {
		if e.Result.Family != "coldstart.phases" {
			continue
		}
		var summary family.PhasesSummary
		if decodeParts(e, nil, &summary, nil) != nil || summary.Setup == nil || summary.Setup.Article == nil {
			continue
		}
		out = append(out, entryTable{Entry: e, Table: coldArticleTable(*summary.Setup.Article)})
	}
	// In the page's order, one claim's languages in turn within each mode, rather than the
	// set's, whose experiments' names sort the languages by their spelling.
	base := map[string]int{}
	for _, et := range out {
		if _, ok := base[et.Entry.Base()]; !ok {
			base[et.Entry.Base()] = len(base)
		}
	}
	slices.SortStableFunc(out, func(a, b entryTable) int {
		return cmp.Or(base[a.Entry.Base()]-base[b.Entry.Base()], modeOrder(a.Entry.Result.Mode)-modeOrder(b.Entry.Result.Mode),
			languageOrder(a.Entry.FunctionLanguage())-languageOrder(b.Entry.FunctionLanguage()))
	})
	return out
}
