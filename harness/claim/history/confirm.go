package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
)

// Rerunner runs a flipped record's claim test again, in the job that ran it first, and gives the
// verdict the second run recorded for the same key, with its result file.
type Rerunner interface {
	Rerun(ctx context.Context, k Key) (again verdict.Outcome, resultFile string, err error)
}

// Confirm runs each of flips again through rr and says which the second run confirmed: the same
// verdict as the first run's. A second run that fails to give a verdict leaves its flip
// unconfirmed, saying why; a context cancelled stops the rest, which are returned unconfirmed.
// files maps each key to the second run's result file, for the alert. past are the earlier runs
// of now's kind that Flips looked through.
func Confirm(ctx context.Context, past []Run, now Run, flips []Flip, rr Rerunner) (cs []Confirmation, files map[Key]string) {
	files = map[Key]string{}
	for _, f := range flips {
		c := Confirmation{Flip: f, Changes: Changes(f.Baseline(past), now, f.Key)}
		if err := ctx.Err(); err != nil {
			c.Why = "not run again: " + err.Error()
			cs = append(cs, c)
			continue
		}
		again, file, err := rr.Rerun(ctx, f.Key)
		switch {
		case err != nil:
			c.Why = "the second run gave no verdict: " + err.Error()
		default:
			c.Again, c.Confirmed = again, again == f.Now
			files[f.Key] = file
		}
		cs = append(cs, c)
	}
	return cs, files
}

// Alert is what a confirmed flip, a schedule gone missing, or a claim that may flip (Warnings)
// tells people: one per claim (the claims a test decides, as Claim), so a claim that flips again
// updates the same issue.
type Alert struct {
	Claim string `json:"claim"`
	// Subject is what the alert is about, the same in every alert about it ("Claim W2 flipped"):
	// each title starts with it, and a sink keeps one open issue per Label and Subject, which a
	// later alert of the same subject updates.
	Subject string   `json:"subject"`
	Label   string   `json:"label"`
	Title   string   `json:"title"`
	Body    string   `json:"body"`            // Markdown
	Files   []string `json:"files,omitempty"` // result files to attach: each flipped result and its second run's
}

// Unsent is an alert a run could not send, kept in the history for the next run to send.
type Unsent struct {
	Alert
	// From is the ID of the run that raised the alert; Why what the sink said when it failed.
	From string `json:"from"`
	Why  string `json:"why"`
}

// Keep is a, raised by run from, as the history keeps it unsent: its result files stay in that
// run's job, so the body says where they are instead of holding them.
func Keep(a Alert, from Run, why error) Unsent {
	if len(a.Files) > 0 {
		a.Body += fmt.Sprintf("\nIts result files are among the files of run %s; this alert could not be sent by that run.\n", link(from))
		a.Files = nil
	}
	return Unsent{Alert: a, From: from.ID(), Why: why.Error()}
}

// The labels of the alerts' issues, one per kind of alert (and WarningLabel).
const (
	FlipLabel    = "claim-flip"
	MissingLabel = "claims-missing-run"
)

// MissingAlert is the alert of kind's scheduled runs gone missing at now's run: the last one
// started at last, more than two periods before (Missing).
func MissingAlert(kind string, last time.Time, now Run) Alert {
	period, _ := Period(kind)
	subject := fmt.Sprintf("Scheduled runs of kind %s went missing", kind)
	return Alert{Claim: "schedule-" + kind, Subject: subject, Label: MissingLabel, Title: subject,
		Body: fmt.Sprintf("The last scheduled run of kind %q before %s started %s, more than two periods (%v) earlier.\n",
			kind, link(now), last.Format(time.RFC3339), period)}
}

// Sink takes alerts: a folder of files in tests and on a developer's machine, GitHub issues in
// the workflow.
type Sink interface {
	Send(ctx context.Context, a Alert) error
}

// Alerts are the alerts of now's confirmed flips against the runs of past they flipped from, one
// per claim; newFiles and againFiles map a key to its result file in the run and in the second
// run.
func Alerts(past []Run, now Run, cs []Confirmation, newFiles, againFiles map[Key]string) []Alert {
	var out []Alert
	byClaim := map[string]int{}
	for _, c := range cs {
		if !c.Confirmed {
			continue
		}
		claim := strings.Join(c.Claims, ",")
		i, ok := byClaim[claim]
		if !ok {
			i = len(out)
			byClaim[claim] = i
			subject := fmt.Sprintf("Claim %s flipped", claim)
			out = append(out, Alert{Claim: claim, Subject: subject, Label: FlipLabel, Title: subject})
		}
		a := &out[i]
		a.Title = fmt.Sprintf("%s: %s → %s", a.Subject, c.Was, c.Now)
		a.Body += flipBody(c.Baseline(past), now, c)
		for _, f := range []string{newFiles[c.Key], againFiles[c.Key]} {
			if f != "" && !slices.Contains(a.Files, f) {
				a.Files = append(a.Files, f)
			}
		}
	}
	return out
}

// flipBody is one confirmed flip in Markdown: both runs' records (last's, the run it flipped
// from), the second run, what changed.
func flipBody(last, now Run, c Confirmation) string {
	var b strings.Builder
	old, _ := last.Find(c.Key)
	cur, _ := now.Find(c.Key)
	fmt.Fprintf(&b, "## %s: %s → %s, confirmed\n\n", c.Key, c.Was, c.Now)
	fmt.Fprintf(&b, "| | run | verdict | headline | margin |\n|---|---|---|---|---|\n")
	row := func(name string, r Run, rec Record) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, link(r), rec.Outcome, cell(rec.Headline), rec.Margin.String())
	}
	row("decided", last, old)
	row("this", now, cur)
	fmt.Fprintf(&b, "| again | this job | %s | | |\n\n", c.Again)
	fmt.Fprintf(&b, "The last decided run's reason: %s\n\nThis run's reason: %s\n\n", old.Reason, cur.Reason)
	if len(c.Changes) == 0 {
		b.WriteString("Nothing else changed between the two runs: same commit, modules, runtime and machine.\n\n")
	} else {
		b.WriteString("What else changed between the two runs:\n\n")
		for _, ch := range c.Changes {
			fmt.Fprintf(&b, "- %s\n", ch)
		}
		if !slices.ContainsFunc(c.Changes, func(ch Change) bool {
			return ch.What == "commit" || strings.HasPrefix(ch.What, "module ")
		}) {
			b.WriteString("\nSame code, different platform: neither the commit nor a module changed.\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func link(r Run) string {
	if r.URL == "" {
		return r.ID()
	}
	return fmt.Sprintf("[%s](%s)", r.ID(), r.URL)
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ") }

// FileSink writes each alert as Dir/<claim>.md, and its files into Dir/<claim>/, a warning as
// Dir/warnings/<claim>.md: what the tests read, and what a run off GitHub leaves to look at.
type FileSink struct{ Dir string }

// Send writes a, replacing an earlier alert of the same claim and kind (flip or warning).
func (s FileSink) Send(_ context.Context, a Alert) error {
	name := strings.ReplaceAll(a.Claim, ",", "-")
	if a.IsWarning() {
		name = filepath.Join("warnings", name)
	}
	if err := wholefile.Write(filepath.Join(s.Dir, name+".md"), []byte("# "+a.Title+"\n\n"+a.Body)); err != nil {
		return err
	}
	for _, f := range a.Files {
		if err := copyFile(f, filepath.Join(s.Dir, name, filepath.Base(filepath.Dir(f))+"-"+filepath.Base(f))); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return wholefile.Write(to, data)
}
