package report_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/history"
	"github.com/serverless-claims/claims/harness/claim/verdict"
	"github.com/serverless-claims/claims/report"
)

// The public page (report.WriteSite, `make pages`) is checked where its readers read it: the
// site is built from the results a run wrote (report.ReportDirEnv, which `make test` sets to its
// own; testdata/results unset) and a history of three scheduled runs of them, one run missing
// between them, and opened in headless Chromium, which is asked what a person sees there.

// siteRuns are three scheduled runs of kind claims of s's results: at start, a day later and
// three days later, so that the run due on the third day is missing. The first run's verdict
// of the first record is the other decided one, so that the strips are not one colour.
func siteRuns(t *testing.T, s report.Set, start time.Time) []history.Run {
	t.Helper()
	var loaded []history.Loaded
	for _, e := range s.Entries {
		loaded = append(loaded, history.Loaded{Path: e.Path, Runtime: e.Runtime(), Result: e.Result})
	}
	var runs []history.Run
	for i, day := range []int{0, 1, 3} {
		r, err := history.NewRun(history.Run{Kind: history.KindClaims, Trigger: "schedule", StartedAt: start.Add(time.Duration(day) * 24 * time.Hour),
			Commit: "0123456789abcdef"}, loaded)
		require.NoError(t, err, "a run of the results under %s", s.Dir)
		if i == 0 {
			if r.Records[0].Outcome == verdict.Pass {
				r.Records[0].Outcome = verdict.Fail
			} else {
				r.Records[0].Outcome = verdict.Pass
			}
		}
		runs = append(runs, r)
	}
	return runs
}

// siteView is what the browser shows of the site's page (siteScript).
type siteView struct {
	Updated *struct {
		Text, Datetime string
		Visible, Above bool
	} `json:"updated"`
	Schedules []struct {
		Kind, Text     string
		Visible, Above bool
	} `json:"schedules"`
	Stale *struct {
		Text    string
		Visible bool
	} `json:"stale"`
	Summary []struct {
		Source, Claims, Verdict string
		Visible                 bool
	} `json:"summary"`
	History []struct {
		Key, Claims string
		Cells       []string // each cell's title: "RUN: verdict ..."
		Visible     bool
	} `json:"history"`
	Links []string `json:"links"`
}

// siteScript reads the page as a person does: text as rendered (innerText), and whether it is
// on screen at all (checkVisibility, a box of some height), and where: the freshness above the
// summary, the first thing read.
const siteScript = `(() => {
	const vis = el => !!el && el.checkVisibility() && el.getBoundingClientRect().height > 0;
	const top = el => el.getBoundingClientRect().top + window.scrollY;
	const summary = document.querySelector('table.summary');
	const above = el => !!summary && top(el) < top(summary);
	const upd = document.querySelector('section.freshness time.updated');
	const stale = document.getElementById('stale');
	return {
		updated: upd && {text: upd.innerText, datetime: upd.getAttribute('datetime'), visible: vis(upd), above: above(upd)},
		schedules: [...document.querySelectorAll('section.freshness .schedule')].map(d =>
			({kind: d.dataset.kind || '', text: d.innerText, visible: vis(d), above: above(d)})),
		stale: stale && {text: stale.innerText, visible: vis(stale)},
		summary: [...document.querySelectorAll('table.summary tbody tr')].map(tr =>
			({source: tr.dataset.source, claims: tr.cells[0].innerText, verdict: tr.querySelector('td.verdict').innerText, visible: vis(tr)})),
		history: [...document.querySelectorAll('table.history tr[data-key]')].map(tr =>
			({key: tr.dataset.key, claims: tr.cells[0].innerText, cells: [...tr.querySelectorAll('.strip .cell')].map(c => c.title), visible: vis(tr)})),
		links: [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
	};
})()`

// siteProblems opens the site under dir, built from s and runs, and says what a person would
// find wrong there, each as "what = got; want want". stale says whether the reader's clock is
// past the schedule's overdue time, so the page must say it stopped.
func siteProblems(t *testing.T, b browser, dir string, s report.Set, runs []history.Run, stale bool) []string {
	t.Helper()
	index := filepath.Join(dir, report.SiteIndex)
	got := b.check(t, index, "")
	problems := got.Problems
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	tab, closeTab := chromedp.NewContext(b.ctx)
	defer closeTab()
	abs, err := filepath.Abs(index)
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate((&url.URL{Scheme: "file", Path: abs}).String())), "opening %s", abs)
	v, err := chromedp.Run(tab, chromedp.Evaluate[siteView](siteScript))
	require.NoError(t, err, "reading %s", abs)

	newest := runs[len(runs)-1]
	wantUpdated := newest.StartedAt.UTC().Format("2006-01-02 15:04 UTC")
	switch {
	case v.Updated == nil:
		add("the last-updated time = none; want %s, the newest run's start, in section.freshness", wantUpdated)
	case v.Updated.Text != wantUpdated || !v.Updated.Visible || !v.Updated.Above:
		add("the last-updated time = %q (visible %t, above the summary %t); want %q, visible, above the summary",
			v.Updated.Text, v.Updated.Visible, v.Updated.Above, wantUpdated)
	}

	// The run due on the third day, between the second run and the third.
	due := runs[1].StartedAt.Add(24 * time.Hour).UTC().Format("2006-01-02 15:04 UTC")
	found := false
	for _, sc := range v.Schedules {
		if sc.Kind != history.KindClaims {
			continue
		}
		found = true
		for _, want := range []string{"1 expected run is missing", "1 scheduled run due " + due + " did not start", runs[1].ID(), runs[2].ID()} {
			if !strings.Contains(sc.Text, want) || !sc.Visible || !sc.Above {
				add("the claims schedule's notice = %q (visible %t, above the summary %t); want %q in it, visible, above the summary",
					sc.Text, sc.Visible, sc.Above, want)
			}
		}
	}
	if !found {
		add("the claims schedule's notice = none of %d; want one saying the run due %s is missing", len(v.Schedules), due)
	}
	switch {
	case v.Stale == nil:
		add("the stale notice = none; want one, shown once the reader's clock is past the schedule's overdue time")
	case v.Stale.Visible != stale:
		add("the stale notice shown = %t (%q); want %t (the reader's clock past the overdue time: %t)", v.Stale.Visible, v.Stale.Text, stale, stale)
	}

	// Each result's row with its verdict, as the files say.
	rows := map[string]int{}
	for i, r := range v.Summary {
		rows[r.Source] = i
	}
	for _, e := range s.Entries {
		i, ok := rows[e.Path]
		if !ok {
			add("the summary's row of %s = none; want one", e.Path)
			continue
		}
		r := v.Summary[i]
		claims, outcome := strings.Join(e.Result.Claims, ", "), string(e.Result.Verdict.Outcome)
		if r.Claims != claims || !strings.HasPrefix(r.Verdict, outcome) || !r.Visible {
			add("the summary's row of %s = claims %q, verdict %q (visible %t); want claims %q, verdict %s, visible", e.Path, r.Claims, r.Verdict, r.Visible, claims, outcome)
		}
	}
	if len(v.Summary) != len(s.Entries) {
		add("summary rows = %d; want %d, one a result", len(v.Summary), len(s.Entries))
	}

	// Each record's row with its verdict in each run, oldest first.
	strips := map[string]int{}
	for i, h := range v.History {
		strips[h.Key] = i
	}
	for _, rec := range newest.Records {
		i, ok := strips[rec.Key.String()]
		if !ok {
			add("the history's row of %s = none; want one", rec.Key)
			continue
		}
		h := v.History[i]
		var want []string
		for _, r := range runs {
			old, _ := r.Find(rec.Key)
			want = append(want, r.ID()+": "+string(old.Outcome))
		}
		ok = len(h.Cells) == len(want) && h.Visible && h.Claims == strings.Join(rec.Claims, ", ")
		for j := 0; ok && j < len(want); j++ {
			ok = h.Cells[j] == want[j] || strings.HasPrefix(h.Cells[j], want[j]+" ")
		}
		if !ok {
			add("the history's row of %s = claims %q, cells %q (visible %t); want claims %q, cells starting %q, visible", rec.Key, h.Claims, h.Cells, h.Visible, strings.Join(rec.Claims, ", "), want)
		}
	}
	if len(v.History) != len(newest.Records) {
		add("history rows = %d; want %d, one a record", len(v.History), len(newest.Records))
	}

	// The site holds what its page links to: Pages serves nothing else.
	for _, l := range slices.Compact(slices.Sorted(slices.Values(v.Links))) {
		u, err := url.Parse(l)
		if err != nil || u.Scheme != "" || u.Path == "" {
			continue // a fragment, or a link off the site
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(u.Path))); err != nil {
			add("the link %s = %v; want its file in the site", l, err)
		}
	}
	return problems
}

// TestSiteInBrowser builds the site twice from the same results, with a history whose newest run
// is long past (the reader's clock is beyond its schedule's overdue time, so the page must say
// the schedule stopped) and one whose newest run was an hour ago (it must not), and checks each
// in the browser.
func TestSiteInBrowser(t *testing.T) {
	b := newBrowser(t)
	dir := os.Getenv(report.ReportDirEnv)
	if dir == "" {
		dir = filepath.Join("testdata", "results")
	}
	for _, tc := range []struct {
		name  string
		start time.Time
		stale bool
	}{
		{"past", time.Date(2026, 3, 1, 6, 0, 0, 0, time.UTC), true},
		{"fresh", time.Now().Add(-73 * time.Hour).Truncate(time.Minute), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := report.Load(dir)
			require.NoError(t, err, "the results (%s=%q)", report.ReportDirEnv, os.Getenv(report.ReportDirEnv))
			runs := siteRuns(t, s, tc.start)
			s.History = report.NewHistory(runs)
			site := filepath.Join(t.TempDir(), "site")
			require.NoError(t, report.WriteSite(site, s, time.Now()))
			problems := siteProblems(t, b, site, s, runs, tc.stale)
			for _, p := range problems {
				t.Error(p)
			}
			t.Logf("%s: %d results, %d runs of history, %d problems", site, len(s.Entries), len(runs), len(problems))
		})
	}
}

// TestSiteCheckCatchesBrokenSites breaks a good site in one way at a time, each a way a person
// would find it wrong, so that TestSiteInBrowser passing means something.
func TestSiteCheckCatchesBrokenSites(t *testing.T) {
	b := newBrowser(t)
	s, err := report.Load(filepath.Join("testdata", "results"))
	require.NoError(t, err)
	runs := siteRuns(t, s, time.Date(2026, 3, 1, 6, 0, 0, 0, time.UTC))
	s.History = report.NewHistory(runs)
	good := filepath.Join(t.TempDir(), "site")
	require.NoError(t, report.WriteSite(good, s, time.Now()))
	page, err := os.ReadFile(filepath.Join(good, report.SiteIndex))
	require.NoError(t, err)
	first := s.Entries[0]
	require.Equal(t, verdict.Pass, first.Result.Verdict.Outcome, "the first result's verdict, which the cases below break")
	for _, tc := range []struct {
		name     string
		old, new string // the page's text replaced
		remove   string // a file of the site removed
		want     string // in one of the problems; "" for none
	}{
		{name: "the site as built"},
		{name: "the build's time for the last update", old: `>2026-03-04 06:00 UTC</time>`, new: `>2026-12-01 00:00 UTC</time>`,
			want: `the last-updated time = "2026-12-01 00:00 UTC"`},
		{name: "no missing-run notice", old: `class="schedule missing"`, new: `class="schedule missing" hidden`,
			want: `the claims schedule's notice`},
		{name: "the freshness below the summary", old: `section.freshness {`, new: `section.freshness { position: absolute; top: 5000px;`,
			want: `above the summary false`},
		{name: "no stale notice", old: `p.hidden = false`, new: `p.hidden = true`, want: `the stale notice shown = false`},
		{name: "a result's row hidden", old: `data-source="` + first.Path + `" data-verdict="pass">`,
			new: `data-source="` + first.Path + `" data-verdict="pass" style="display:none">`, want: `the summary's row of ` + first.Path},
		// The first verdict cell on the page is the first result's, a pass.
		{name: "a verdict not the file's", old: `>pass</td>`, new: `>fail</td>`, want: `the summary's row of ` + first.Path},
		{name: "a strip newest first", old: `title="` + runs[0].ID(), new: `title="` + runs[2].ID(), want: `the history's row of`},
		{name: "a result not in the site", remove: first.Path, want: `the link ` + first.Path},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "site")
			require.NoError(t, os.CopyFS(dir, os.DirFS(good)))
			if tc.old != "" {
				require.Contains(t, string(page), tc.old, "the text to break")
				broken := strings.Replace(string(page), tc.old, tc.new, 1)
				require.NoError(t, os.WriteFile(filepath.Join(dir, report.SiteIndex), []byte(broken), 0o644))
			}
			if tc.remove != "" {
				require.NoError(t, os.Remove(filepath.Join(dir, filepath.FromSlash(tc.remove))))
			}
			problems := siteProblems(t, b, dir, s, runs, true)
			t.Logf("problems: %q", problems)
			if tc.want == "" {
				assert.Empty(t, problems, "problems on the site as built = %q; want none", problems)
				return
			}
			found := false
			for _, p := range problems {
				found = found || strings.Contains(p, tc.want)
			}
			assert.True(t, found, "problems = %q; want one containing %q", problems, tc.want)
		})
	}
}
