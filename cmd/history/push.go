package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The push's waits between tries: doubling from pushWait, at most pushMaxWait, each with up to as
// much again at random, so that two writers that collided do not collide again in step.
const (
	pushWait    = 500 * time.Millisecond
	pushMaxWait = 8 * time.Second
)

// push commits what changed in a checkout of the history branch and pushes it, rebasing onto the
// branch as it is on the remote and trying again when another writer pushed first: the runs are
// files of their own, so a rebase of one run's commit onto another's never conflicts.
func push(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flags("push")
	dir := fs.String("history", "", "the history's folder: a git checkout (a worktree) of the history branch, or a new orphan one")
	branch := fs.String("branch", "", "the history's branch on the remote")
	remote := fs.String("remote", "origin", "the remote to push to")
	message := fs.String("message", "", "the commit's message (default: history: <the runs added>)")
	tries := fs.Int("tries", 10, "how many pushes to try before giving up")
	author := fs.String("author", "claims history <github-actions[bot]@users.noreply.github.com>", "the commit's author and committer, NAME <EMAIL>")
	if err := fs.Parse(args); err != nil {
		return err
	}
	name, email, ok := strings.Cut(strings.TrimSuffix(*author, ">"), " <")
	switch {
	case *dir == "":
		return errors.New("-history: name the history's checkout")
	case *branch == "":
		return errors.New("-branch: name the history's branch")
	case *tries < 1:
		return fmt.Errorf("-tries %d: want at least 1", *tries)
	case !ok || name == "" || email == "":
		return fmt.Errorf("-author %q: want NAME <EMAIL>", *author)
	}
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", *dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME="+name, "GIT_AUTHOR_EMAIL="+email,
			"GIT_COMMITTER_NAME="+name, "GIT_COMMITTER_EMAIL="+email, "GIT_TERMINAL_PROMPT=0")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return out.String(), fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(out.String()))
		}
		return out.String(), nil
	}
	if _, err := git("add", "-A"); err != nil {
		return err
	}
	added, err := git("diff", "--cached", "--name-only", "--diff-filter=A")
	if err != nil {
		return err
	}
	if _, err := git("diff", "--cached", "--quiet"); err != nil {
		msg := *message
		if msg == "" {
			msg = "history: " + strings.Join(strings.Fields(added), " ")
		}
		if _, err := git("commit", "-q", "-m", msg); err != nil {
			return err
		}
	} else if _, err := git("rev-parse", "--verify", "-q", "HEAD"); err != nil {
		fmt.Fprintln(stdout, "history push: nothing to push")
		return nil
	}
	wait := pushWait
	for try := 1; ; try++ {
		_, pushErr := git("push", "-q", *remote, "HEAD:refs/heads/"+*branch)
		if pushErr == nil {
			fmt.Fprintf(stdout, "history push: %s pushed to %s %s (try %d)\n", *dir, *remote, *branch, try)
			return nil
		}
		if try == *tries {
			return fmt.Errorf("history push: %d tries: %w", try, pushErr)
		}
		// Another writer pushed first: take the branch as it is now, put this run on top.
		if _, err := git("fetch", "-q", *remote, *branch); err != nil {
			return fmt.Errorf("%w; then %w", pushErr, err)
		}
		if _, err := git("rebase", "-q", "FETCH_HEAD"); err != nil {
			_, _ = git("rebase", "--abort") // leave the checkout as it was, with this run's commit
			return fmt.Errorf("history push: rebase onto %s %s: %w", *remote, *branch, err)
		}
		fmt.Fprintf(stdout, "history push: try %d refused, rebased onto %s %s\n", try, *remote, *branch)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait + rand.N(wait)):
		}
		wait = min(2*wait, pushMaxWait)
	}
}
