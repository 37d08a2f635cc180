package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/serverless-claims/claims/harness/claim/history"
)

// labelDescriptions are what each alert's label says on GitHub.
var labelDescriptions = map[string]string{
	history.FlipLabel:    "a claim whose verdict flipped, confirmed by a second run",
	history.MissingLabel: "a scheduled run of the claims that did not happen",
	history.WarningLabel: "a claim that may flip: its margin shrank, or runs in a row could not decide it",
}

// maxIssueBody keeps a body inside GitHub's limit on an issue's or a comment's body (65,536
// characters), with room for the run's link.
const maxIssueBody = 60000

// ghSink opens an issue per alert's subject (a flipped claim, a schedule gone missing, a claim
// that may flip), or comments on the open one, with the gh CLI (which reads GH_TOKEN in a
// workflow).
type ghSink struct {
	repo string
	gh   string // the gh executable; "" for the one on PATH
}

// Send implements history.Sink.
func (s ghSink) Send(ctx context.Context, a history.Alert) error {
	body := s.body(a)
	f, err := os.CreateTemp("", "claims-alert-*.md")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(body); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if a.Label == "" || a.Subject == "" || !strings.HasPrefix(a.Title, a.Subject) {
		return fmt.Errorf("alert %q: want a label and a subject the title starts with", a.Title)
	}
	if _, err := s.run(ctx, "label", "create", a.Label, "--repo", s.repo, "--force",
		"--description", labelDescriptions[a.Label]); err != nil {
		return err
	}
	// The open issue of the alert's subject is found as it was opened: by its label and its
	// title's start.
	out, err := s.run(ctx, "issue", "list", "--repo", s.repo, "--state", "open", "--label", a.Label,
		"--json", "number,title", "--limit", "200")
	if err != nil {
		return err
	}
	var open []struct {
		Number int    `json:"number"`
		Title  string `json:"title"`
	}
	if err := json.Unmarshal(out, &open); err != nil {
		return fmt.Errorf("gh issue list: %w", err)
	}
	for _, i := range open {
		if strings.HasPrefix(i.Title, a.Subject) {
			_, err := s.run(ctx, "issue", "comment", fmt.Sprint(i.Number), "--repo", s.repo, "--body-file", f.Name())
			return err
		}
	}
	_, err = s.run(ctx, "issue", "create", "--repo", s.repo, "--title", a.Title, "--label", a.Label, "--body-file", f.Name())
	return err
}

// body is the alert's Markdown with each result file in a folded block, cut to fit an issue.
func (s ghSink) body(a history.Alert) string {
	var b strings.Builder
	b.WriteString(a.Body)
	for _, file := range a.Files {
		data, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(&b, "\n%s: not readable: %v\n", filepath.Base(file), err)
			continue
		}
		block := fmt.Sprintf("\n<details><summary>%s</summary>\n\n```json\n%s\n```\n</details>\n", filepath.Base(file), bytes.TrimSpace(data))
		if b.Len()+len(block) > maxIssueBody {
			fmt.Fprintf(&b, "\n%s is too long for the issue: it is among the run's artifacts.\n", filepath.Base(file))
			continue
		}
		b.WriteString(block)
	}
	return b.String()
}

// run runs gh with args and gives its standard output, or an error with its standard error.
func (s ghSink) run(ctx context.Context, args ...string) ([]byte, error) {
	gh := s.gh
	if gh == "" {
		gh = "gh"
	}
	cmd := exec.CommandContext(ctx, gh, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("gh %s: %w: %s", strings.Join(args[:2], " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
