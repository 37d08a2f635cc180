// Package verdict turns evidence into a claim's verdict: pass, fail or inconclusive, with the
// reason and every check that went into it. Checks on time are ratio bands measured in the same
// run; whether a /ping waited is decided before, on one probe's own clock (pattern.PingWait).
package verdict

import (
	"fmt"
	"math"
	"strings"

	"github.com/serverless-claims/claims/harness/claim/stats"
)

// Outcome is a verdict's word.
type Outcome string

// The three outcomes. Inconclusive is honest: the run did not produce enough evidence.
const (
	Pass         Outcome = "pass"
	Fail         Outcome = "fail"
	Inconclusive Outcome = "inconclusive"
)

// Enum lists the outcomes, for the result's schema.
func (Outcome) Enum() []string { return []string{string(Pass), string(Fail), string(Inconclusive)} }

// Check is one condition of a claim, as measured.
type Check struct {
	Name string `json:"name" jsonschema:"minLength=1"` // what was measured: "waited behind /cpu"
	Got  string `json:"got"`                           // "20/20", "0.97"
	Want string `json:"want" jsonschema:"minLength=1"` // "20/20", "within [0.90, 1.20]"
	Pass bool   `json:"pass"`
	// Undecided says the evidence leaves the check open: the confidence interval of what it
	// measures straddles the bound. Such a check neither holds nor fails, and makes the verdict
	// inconclusive unless another check fails.
	Undecided bool   `json:"undecided,omitempty"`
	Note      string `json:"note,omitempty"` // the evidence behind Got, e.g. the figures of a ratio
	// Bound is the figure and the limit the check compared, so that a reader can follow how far
	// a result is from flipping; nil where there is no such distance (a count that must be every
	// trial, a figure that is not a number).
	Bound *Bound `json:"bound,omitempty"`
}

// The sides of a Bound: the figure must be at least, or at most, the limit.
const (
	BoundAtLeast = "at least"
	BoundAtMost  = "at most"
)

// Sides are a Bound's sides.
var Sides = []string{BoundAtLeast, BoundAtMost}

// Bound is what a check compared: a figure against a limit, on one side.
type Bound struct {
	// Figure is the figure compared: for an estimate, its interval's end nearest the limit (Lo
	// for at least, Hi for at most), since the whole interval must clear the limit.
	Figure float64 `json:"figure"`
	Limit  float64 `json:"limit"`
	Side   string  `json:"side"`                                    // BoundAtLeast or BoundAtMost
	Unit   string  `json:"unit,omitempty" jsonschema:"minLength=1"` // "ms", "trials" for a count of trials, "" for a ratio
}

// Margin is how far the figure is inside the limit, in the bound's unit: Figure-Limit for at
// least, Limit-Figure for at most. Positive inside (the bound holds), negative outside, 0 on it.
func (b Bound) Margin() float64 {
	if b.Side == BoundAtMost {
		return b.Limit - b.Figure
	}
	return b.Figure - b.Limit
}

// Relative is Margin as a share of the limit (Margin()/|Limit|, or Margin() where Limit is 0),
// so that the margins of bounds in different units compare.
func (b Bound) Relative() float64 {
	if b.Limit == 0 {
		return b.Margin()
	}
	return b.Margin() / math.Abs(b.Limit)
}

// bound is a Bound, or nil where figure or limit is not finite: there is no distance to measure,
// and JSON has no NaN or infinity to write.
func bound(figure, limit float64, side, unit string) *Bound {
	if math.IsNaN(figure) || math.IsInf(figure, 0) || math.IsNaN(limit) || math.IsInf(limit, 0) {
		return nil
	}
	return &Bound{Figure: figure, Limit: limit, Side: side, Unit: unit}
}

// band is the Bound of a two-sided check lo <= got <= hi: the end got is nearer (or beyond), as
// that is the one it would cross first. A tie goes to lo. A low end of 0 or less bounds nothing
// the checks measure (ratios of times, shares, durations, none below 0): a /ping's share of a
// spin near 0 is far from failing, so the margin is to hi.
func band(got, lo, hi float64, unit string) *Bound {
	if lo > 0 && got-lo <= hi-got {
		return bound(got, lo, BoundAtLeast, unit)
	}
	return bound(got, hi, BoundAtMost, unit)
}

// String reads "name = got; want want (note)", the form of a failure message.
func (c Check) String() string {
	s := fmt.Sprintf("%s = %s; want %s", c.Name, c.Got, c.Want)
	if c.Note != "" {
		s += " (" + c.Note + ")"
	}
	return s
}

// Verdict is a claim's outcome with its reason and its checks.
type Verdict struct {
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason"`
	Checks  []Check `json:"checks"`
}

// Margin is the check nearest to flipping: of those with a Bound, the one whose Relative() is
// smallest (the first of equals); false when no check has a Bound. Relative margins compare
// checks in different units.
func (v Verdict) Margin() (Check, bool) {
	best := -1
	for i, c := range v.Checks {
		if c.Bound != nil && (best < 0 || c.Bound.Relative() < v.Checks[best].Bound.Relative()) {
			best = i
		}
	}
	if best < 0 {
		return Check{}, false
	}
	return v.Checks[best], true
}

// Decide gives the verdict: inconclusive when fewer than half the trials (or none) were
// evidential; else fail naming each check that does not hold; else inconclusive naming each check
// the evidence leaves open; else pass.
func Decide(evidential stats.Proportion, checks ...Check) Verdict {
	return DecideWith(evidential, "", checks...)
}

// DecideWith is Decide told why the trials that were not evidence were not (notEvidence, e.g.
// "2 the first REPORT has no Init Duration; 1 GetItem denied"; "" where it cannot say): where
// too few were evidence, the reason ends "; not evidence: " and that, so that an inconclusive
// verdict names what kept the rest from counting, not only how many did.
func DecideWith(evidential stats.Proportion, notEvidence string, checks ...Check) Verdict {
	v := Verdict{Checks: checks}
	if evidential.K == 0 || 2*evidential.K < evidential.N {
		v.Outcome = Inconclusive
		v.Reason = fmt.Sprintf("only %s trials were evidence; at least half are needed", evidential)
		if notEvidence != "" {
			v.Reason += "; not evidence: " + notEvidence
		}
		return v
	}
	var failed, open []string
	for _, c := range checks {
		switch {
		case c.Undecided:
			open = append(open, c.String())
		case !c.Pass:
			failed = append(failed, c.String())
		}
	}
	if len(failed) > 0 {
		v.Outcome = Fail
		v.Reason = strings.Join(failed, "; ")
		return v
	}
	if len(open) > 0 {
		v.Outcome = Inconclusive
		v.Reason = "left open by the evidence, at the intervals' confidence: " + strings.Join(open, "; ")
		return v
	}
	held := make([]string, len(checks))
	for i, c := range checks {
		held[i] = fmt.Sprintf("%s = %s (want %s)", c.Name, c.Got, c.Want)
	}
	v.Outcome = Pass
	v.Reason = fmt.Sprintf("over %s evidential trials: %s", evidential, strings.Join(held, "; "))
	return v
}

// All checks that every trial counted: "waited = 19/20; want all of them (20/20)", and with no
// trial "want all of at least one": the want states the rule, so that a check with no evidence
// does not read as a count that matched. It has no Bound: a count that must be every trial has
// no margin to shrink, as one trial flips it.
func All(name string, p stats.Proportion) Check {
	return Check{Name: name, Got: p.String(), Want: ofEvery("all", p), Pass: p.All()}
}

// None checks that no trial counted: "waited = 3/20; want none of them (0/20)", and with no
// trial "want none of at least one". It has no Bound, as All.
func None(name string, p stats.Proportion) Check {
	return Check{Name: name, Got: p.String(), Want: ofEvery("none", p), Pass: p.None()}
}

// ofEvery is All's and None's want: the rule, with the count it asks for where there were trials.
func ofEvery(rule string, p stats.Proportion) string {
	if p.N == 0 {
		return rule + " of at least one"
	}
	k := 0
	if rule == "all" {
		k = p.N
	}
	return fmt.Sprintf("%s of them (%d/%d)", rule, k, p.N)
}

// Minority checks that fewer than half the trials counted: "waited = 1/8; want fewer than 4/8".
// It is for a control in which the counted event can still happen by chance (a thread the
// scheduler leaves waiting), where a mechanism would make it happen every time. Its Bound is
// the count at most the largest that passes ((N+1)/2 - 1), in trials; none without trials,
// which pass no count.
func Minority(name string, p stats.Proportion) Check {
	c := Check{Name: name, Got: p.String(), Want: fmt.Sprintf("fewer than %d/%d", (p.N+1)/2, p.N), Pass: p.N > 0 && 2*p.K < p.N}
	if p.N > 0 {
		c.Bound = bound(float64(p.K), float64((p.N+1)/2-1), BoundAtMost, "trials")
	}
	return c
}

// Some checks that at least one trial counted: "ignored = 1/4; want at least 1/4", and with no
// trial "want at least one of at least one", as All and None state their rule. It is for a
// claim that something can happen ("not guaranteed"), which one case shows. Its Bound is the
// count at least 1, in trials.
func Some(name string, p stats.Proportion) Check {
	want := fmt.Sprintf("at least 1/%d", p.N)
	if p.N == 0 {
		want = "at least one of at least one"
	}
	c := Check{Name: name, Got: p.String(), Want: want, Pass: p.K >= 1}
	c.Bound = bound(float64(p.K), 1, BoundAtLeast, "trials")
	return c
}

// Exactly checks a count that has one right value: "pool threads = 1024; want exactly 1024".
// It has no Bound: any other count fails, so there is no margin to shrink.
func Exactly(name string, got, want int, note string) Check {
	return Check{Name: name, Got: fmt.Sprint(got), Want: fmt.Sprintf("exactly %d", want), Pass: got == want, Note: note}
}

// Within checks that got/ref lies in [lo, hi]; the note gives both figures and refWhat, which
// says what ref is ("spin - 15 ms"). Its Bound is the ratio against the end it is nearer (or
// beyond): at least lo, or at most hi; none where ref is not positive or the ratio is not a
// number, which compare nothing.
func Within(name string, got, ref, lo, hi float64, refWhat string) Check {
	ratio := got / ref
	c := Check{
		Name: name,
		Got:  fmt.Sprintf("%.2f", ratio),
		Want: fmt.Sprintf("within [%.2f, %.2f]", lo, hi),
		Pass: ref > 0 && ratio >= lo && ratio <= hi,
		Note: fmt.Sprintf("%.1f ms / %.1f ms, %s", got, ref, refWhat),
	}
	if ref > 0 {
		c.Bound = band(ratio, lo, hi, "")
	}
	return c
}

// InBand checks lo <= got <= hi, all in unit ("" for a ratio or a count). NaN fails. Its Bound
// is got against the end it is nearer (or beyond): at least lo, or at most hi; none for NaN.
func InBand(name string, got, lo, hi float64, unit, note string) Check {
	return Check{
		Name:  name,
		Got:   withUnit(got, unit),
		Want:  fmt.Sprintf("within [%s, %s]", withUnit(lo, unit), withUnit(hi, unit)),
		Pass:  got >= lo && got <= hi,
		Note:  note,
		Bound: band(got, lo, hi, unit),
	}
}

// AtMost checks got <= limit, both in unit ("" for a ratio or a count). Its Bound is got at
// most limit (none where either is not finite).
func AtMost(name string, got, limit float64, unit, note string) Check {
	return Check{
		Name:  name,
		Got:   withUnit(got, unit),
		Want:  "at most " + withUnit(limit, unit),
		Pass:  got <= limit,
		Note:  note,
		Bound: bound(got, limit, BoundAtMost, unit),
	}
}

// AtLeast checks got >= limit, both in unit ("" for a ratio or a count). NaN fails. Its Bound
// is got at least limit (none where either is not finite).
func AtLeast(name string, got, limit float64, unit, note string) Check {
	return Check{
		Name:  name,
		Got:   withUnit(got, unit),
		Want:  "at least " + withUnit(limit, unit),
		Pass:  got >= limit,
		Note:  note,
		Bound: bound(got, limit, BoundAtLeast, unit),
	}
}

// RatioAtLeast checks got/ref >= lo, two figures in ms of the same run; the note gives both and
// refWhat, which says what ref is. A ref that is not positive fails: there is nothing to compare,
// and so no Bound; else the Bound is the ratio at least lo.
func RatioAtLeast(name string, got, ref, lo float64, refWhat string) Check {
	c := AtLeast(name, got/ref, lo, "", ratioNote(got, ref, refWhat))
	c.Pass = c.Pass && ref > 0
	if ref <= 0 {
		c.Bound = nil
	}
	return c
}

// RatioAtMost checks got/ref <= hi, as RatioAtLeast; its Bound is the ratio at most hi.
func RatioAtMost(name string, got, ref, hi float64, refWhat string) Check {
	c := AtMost(name, got/ref, hi, "", ratioNote(got, ref, refWhat))
	c.Pass = c.Pass && ref > 0
	if ref <= 0 {
		c.Bound = nil
	}
	return c
}

// EstimateAtLeast checks that e (a figure from means with its bootstrap interval,
// stats.MeansCI) is at least k: it holds when the whole interval is at least k, fails when the
// whole interval is below, and is left open between, or when the interval is open. what says
// how e was made from which figures. Its Bound is the interval's lower end at least k, the end
// that must clear it; none where the interval is open, which has no end to measure from.
func EstimateAtLeast(name string, e stats.Estimate, k float64, what string) Check {
	c := Check{Name: name, Got: e.String(), Want: fmt.Sprintf("at least %.2f", k), Note: estimateNote(e, what)}
	c.Pass = e.Finite && e.Lo >= k
	c.Undecided = !c.Pass && !(e.Finite && e.Hi < k)
	if e.Finite {
		c.Bound = bound(e.Lo, k, BoundAtLeast, "")
	}
	return c
}

// EstimateAtMost checks that e is at most k, as EstimateAtLeast; its Bound is the interval's
// upper end at most k.
func EstimateAtMost(name string, e stats.Estimate, k float64, what string) Check {
	c := Check{Name: name, Got: e.String(), Want: fmt.Sprintf("at most %.2f", k), Note: estimateNote(e, what)}
	c.Pass = e.Finite && e.Hi <= k
	c.Undecided = !c.Pass && !(e.Finite && e.Lo > k)
	if e.Finite {
		c.Bound = bound(e.Hi, k, BoundAtMost, "")
	}
	return c
}

func estimateNote(e stats.Estimate, what string) string {
	return fmt.Sprintf("%s; %s, %.0f%% interval, %d trials", what, e.Method, 100*e.Confidence, e.N)
}

func ratioNote(got, ref float64, refWhat string) string {
	return fmt.Sprintf("%.2f ms / %.2f ms, %s", got, ref, refWhat)
}

func withUnit(v float64, unit string) string {
	if unit == "" {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}
