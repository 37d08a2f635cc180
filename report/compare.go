package report

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/serverless-claims/claims/catalog"
	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/harness/claim/verdict"
)

// Comparison is what changed between two result sets: another runtime version, local against
// live, or an older run against today's.
type Comparison struct {
	Old, New Set
	Pairs    []Pair  // every result of OLD with its counterpart in NEW, in OLD's order
	Flips    []Flip  // verdicts that changed, in the pairs' order
	Moves    []Move  // checks whose figure moved outside its band, in the pairs' order
	OnlyOld  []Entry // results of OLD with no counterpart in NEW
	OnlyNew  []Entry // results of NEW with no counterpart in OLD
}

// Pair is a result of OLD and its counterpart in NEW.
type Pair struct {
	Old, New Entry
}

// Flip is a change of a pair's verdict: its outcome, or what its test asserts of the outcome.
type Flip struct {
	Pair Pair
	// Expected says the recorded expectation changed (a refutation asserted, no longer asserted,
	// or asserting another outcome) rather than the outcome itself.
	Expected bool
	Old, New string // "pass", "fail"; for Expected, "holds" or "refuted (fail): why"
}

// Move is a check, matched by name, whose figure moved outside its band between a pair's results.
type Move struct {
	Pair     Pair
	Old, New verdict.Check
	// Crossed says the check changed state against its bound: it held in one and failed or was
	// left open in the other.
	Crossed bool
	// Outside is "above" or "below" when NEW's leading figure lies outside the interval
	// "(lo to hi)" of OLD's figure, else "".
	Outside string
}

// Differs reports whether the comparison found anything: a flip, a move, or a result on one side
// only.
func (c Comparison) Differs() bool {
	return len(c.Flips)+len(c.Moves)+len(c.OnlyOld)+len(c.OnlyNew) > 0
}

// Compare pairs the results of old and new and lists what differs. Results pair first by the same
// experiment and mode; those left pair by Base and family, in the same mode before any other, so
// TestX/node20 pairs with TestX/node24 and a local result with its live one, though a cold-start
// claim's result pairs only with one of its own function's language (sameFunction). Those still
// left are on one side only.
func Compare(old, new Set) Comparison {
	c := Comparison{Old: old, New: new}
	match := make([]int, len(old.Entries)) // index in new.Entries, or -1
	taken := make([]bool, len(new.Entries))
	for i := range match {
		match[i] = -1
	}
	pass := func(same func(a, b Entry) bool) {
		for i, a := range old.Entries {
			if match[i] >= 0 {
				continue
			}
			for j, b := range new.Entries {
				if !taken[j] && same(a, b) {
					match[i], taken[j] = j, true
					break
				}
			}
		}
	}
	pass(func(a, b Entry) bool {
		return a.Result.Experiment == b.Result.Experiment && a.Result.Mode == b.Result.Mode
	})
	pass(func(a, b Entry) bool {
		return a.Base() == b.Base() && a.Result.Family == b.Result.Family && a.Result.Mode == b.Result.Mode && sameFunction(a, b)
	})
	pass(func(a, b Entry) bool {
		return a.Base() == b.Base() && a.Result.Family == b.Result.Family && sameFunction(a, b)
	})

	for i, a := range old.Entries {
		if match[i] < 0 {
			c.OnlyOld = append(c.OnlyOld, a)
			continue
		}
		p := Pair{Old: a, New: new.Entries[match[i]]}
		c.Pairs = append(c.Pairs, p)
		c.Flips = append(c.Flips, flips(p)...)
		c.Moves = append(c.Moves, moves(p)...)
	}
	for j, b := range new.Entries {
		if !taken[j] {
			c.OnlyNew = append(c.OnlyNew, b)
		}
	}
	return c
}

// sameFunction says a and b ran the same language's function, or neither ran one: Base leaves
// out a cold-start claim's language so that the languages are drawn side by side, but the Rust
// function's result is no counterpart of the Node.js function's, as Node 24's is of Node 20's. A
// cold-start result made before functions had languages ran the Go function.
func sameFunction(a, b Entry) bool {
	language := func(e Entry) string {
		if l := e.FunctionLanguage(); l != "" || !coldstartFamily(e.Result.Family) {
			return l
		}
		return catalog.Go
	}
	return language(a) == language(b)
}

// flips are the changes of p's outcome and of what its test asserts.
func flips(p Pair) []Flip {
	var out []Flip
	if o, n := p.Old.Result.Verdict.Outcome, p.New.Result.Verdict.Outcome; o != n {
		out = append(out, Flip{Pair: p, Old: string(o), New: string(n)})
	}
	// A reworded why is not a change of what the test asserts; its outcome is.
	if o, n := p.Old.Result.Expected, p.New.Result.Expected; expectedOutcome(o) != expectedOutcome(n) {
		out = append(out, Flip{Pair: p, Expected: true, Old: expectedText(p.Old), New: expectedText(p.New)})
	}
	return out
}

// expectedOutcome is the outcome a test asserts, or "" when it asserts that the claim holds.
func expectedOutcome(x *results.Expected) verdict.Outcome {
	if x == nil {
		return ""
	}
	return x.Outcome
}

// expectedText is what e's test asserts of its verdict, in a few words.
func expectedText(e Entry) string {
	x := e.Result.Expected
	if x == nil {
		return "holds"
	}
	return fmt.Sprintf("refuted (%s): %s", x.Outcome, x.Why)
}

// moves are p's checks, matched by name, that crossed their bound or whose NEW figure lies
// outside OLD's interval.
func moves(p Pair) []Move {
	var out []Move
	newChecks := p.New.Result.Verdict.Checks
	used := make([]bool, len(newChecks))
	for _, o := range p.Old.Result.Verdict.Checks {
		j := -1
		for k, n := range newChecks {
			if !used[k] && n.Name == o.Name {
				j = k
				break
			}
		}
		if j < 0 {
			continue
		}
		used[j] = true
		n := newChecks[j]
		m := Move{Pair: p, Old: o, New: n, Crossed: checkState(o) != checkState(n)}
		if lo, hi, ok := interval(o.Got); ok {
			if v, ok := leading(n.Got); ok {
				switch {
				case v < lo:
					m.Outside = "below"
				case v > hi:
					m.Outside = "above"
				}
			}
		}
		if m.Crossed || m.Outside != "" {
			out = append(out, m)
		}
	}
	return out
}

// checkState is where a check stands against its bound: an undecided check neither holds nor
// fails, so moving into or out of that state is crossing the bound too.
func checkState(c verdict.Check) string {
	switch {
	case c.Pass:
		return "holds"
	case c.Undecided:
		return "open"
	default:
		return "fails"
	}
}

// intervalRe finds the interval stats.Estimate writes after its figure: "0.91 (0.78 to 1.09)".
var intervalRe = regexp.MustCompile(`\(\s*(\S+)\s+to\s+(\S+?)\s*\)`)

// interval is the interval a check's figure carries, if it has one.
func interval(got string) (lo, hi float64, ok bool) {
	m := intervalRe.FindStringSubmatch(got)
	if m == nil {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseFloat(m[1], 64)
	hi, err2 := strconv.ParseFloat(m[2], 64)
	if err1 != nil || err2 != nil || lo > hi {
		return 0, 0, false
	}
	return lo, hi, true
}

// leading is the number a check's figure starts with: 0.91 of "0.91 (0.78 to 1.09)", 0.15 of
// "0.15 %". A count ("20/20") has none.
func leading(got string) (float64, bool) {
	f := strings.Fields(got)
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimRight(f[0], "%,;"), 64)
	return v, err == nil
}

// WriteComparison writes c for people: the flipped verdicts, the figures outside their bands,
// and the results on one side only, each line naming the claims, the experiment, the variants and
// both values; or "no differences".
func WriteComparison(w io.Writer, c Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "OLD %s: %d results; NEW %s: %d results; %d paired.\n",
		c.Old.Dir, len(c.Old.Entries), c.New.Dir, len(c.New.Entries), len(c.Pairs))
	// NEW's results of a platform that judges the model: the article, the model and the
	// platform side by side, where the model and the platform disagree first.
	if js := Judgements(c.New); len(js) > 0 {
		fmt.Fprintf(&b, "\nThe model, judged in NEW (%d): the article's claim / the model's prediction / the platform's verdict\n", len(js))
		for _, j := range js {
			line := fmt.Sprintf("  %s %s: article: %s / model: %s / platform: %s", strings.Join(j.Claims, ","), j.Experiment, j.Article, j.Model, j.Platform)
			if j.Disagrees {
				line += " (the model disagrees)"
			}
			fmt.Fprintln(&b, line)
		}
	}
	if !c.Differs() {
		fmt.Fprintln(&b, "no differences")
		_, err := io.WriteString(w, b.String())
		return err
	}
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s (%d)\n", title, len(lines))
		for _, l := range lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	var lines []string
	for _, f := range c.Flips {
		what := "verdict"
		if f.Expected {
			what = "asserted"
		}
		lines = append(lines, fmt.Sprintf("%s: %s %s → %s", f.Pair, what, f.Old, f.New))
	}
	section("Verdicts that flipped", lines)
	lines = nil
	for _, m := range c.Moves {
		lines = append(lines, m.String())
	}
	section("Figures outside their bands", lines)
	section("Only in OLD", oneSide(c.OnlyOld))
	section("Only in NEW", oneSide(c.OnlyNew))
	_, err := io.WriteString(w, b.String())
	return err
}

// String names the pair: its claims, its experiment and its variant, each as "old → new" where
// they differ.
func (p Pair) String() string {
	return fmt.Sprintf("%s %s [%s]", claimIDs(p.Old, p.New),
		arrow(p.Old.Result.Experiment, p.New.Result.Experiment), arrow(p.Old.Variant(), p.New.Variant()))
}

// String reads "pair: name: old got → new got, want want: what moved".
func (m Move) String() string {
	var why []string
	if m.Crossed {
		why = append(why, fmt.Sprintf("crossed its bound (%s → %s)", checkState(m.Old), checkState(m.New)))
	}
	if m.Outside != "" {
		why = append(why, fmt.Sprintf("NEW's figure %s OLD's interval", m.Outside))
	}
	s := fmt.Sprintf("%s: %s: %s → %s, want %s: %s", m.Pair, m.Old.Name, m.Old.Got, m.New.Got,
		arrow(m.Old.Want, m.New.Want), strings.Join(why, "; "))
	// The evidence behind each figure, where the check keeps it (P5: which entry forms were
	// ignored on which runtime), so that the line says what changed, not only by how much.
	if m.Old.Note != m.New.Note && (m.Old.Note != "" || m.New.Note != "") {
		s += "\n      OLD: " + m.Old.Note + "\n      NEW: " + m.New.Note
	}
	return s
}

// oneSide is a line for each result with no counterpart: its claims, experiment, variant and
// verdict.
func oneSide(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, fmt.Sprintf("%s %s [%s]: %s", strings.Join(e.Result.Claims, ","),
			e.Result.Experiment, e.Variant(), e.Result.Verdict.Outcome))
	}
	return out
}

// claimIDs are the claims of a pair, both lists where they differ.
func claimIDs(a, b Entry) string {
	return arrow(strings.Join(a.Result.Claims, ","), strings.Join(b.Result.Claims, ","))
}

// arrow is "a → b", or a alone when both are the same.
func arrow(a, b string) string {
	if a == b {
		return a
	}
	return a + " → " + b
}
