package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/history"
	"github.com/serverless-claims/claims/report"
)

// The report page is checked where people read it: in a browser. A chart that drew nothing, a
// script error or a fetch the page makes (it must open offline) is invisible to the Go tests
// that read the HTML as text.

// reportPageEnv names the page to check: `make test` sets it to the page it rendered from the
// results it wrote. Unset, the test renders a page from the result files in
// testdata/results (real results of this repository's tests, one or two of each group).
const reportPageEnv = "CLAIMS_REPORT_PAGE"

func TestPageInBrowser(t *testing.T) {
	b := newBrowser(t)
	page := os.Getenv(reportPageEnv)
	var shot string
	wantRows := -1 // the summary's rows, when this test rendered the page and knows them
	if page == "" {
		s, err := report.Load(filepath.Join("testdata", "results"))
		require.NoError(t, err)
		if _, err := os.Stat(sampleHistoryDir); err == nil {
			// The sample history's section too, so that its sparklines are checked here as
			// every chart is (TestHistoryChartsDrawTheSampleHistory checks what they draw).
			runs, err := history.Read(sampleHistoryDir)
			require.NoError(t, err, "the sample history %s", sampleHistoryDir)
			s.History = report.NewHistory(runs)
		}
		var h bytes.Buffer
		require.NoError(t, report.WriteHTML(&h, s, time.Now()))
		dir := t.TempDir()
		page, shot = filepath.Join(dir, "report.html"), filepath.Join(dir, "report.png")
		require.NoError(t, os.WriteFile(page, h.Bytes(), 0o644))
		wantRows = len(s.Entries)
	} else {
		shot = strings.TrimSuffix(page, filepath.Ext(page)) + ".png"
	}

	got := b.check(t, page, shot)
	for _, p := range got.Problems {
		t.Error(p)
	}
	if wantRows >= 0 {
		// Proof that the checks ran on the page rendered, not on an empty tab.
		assert.Equal(t, wantRows, got.SummaryRows, "summary rows in the browser = %d; want %d (one a result)", got.SummaryRows, wantRows)
	}
	t.Logf("%s: %d figures, %d charts, %d summary rows; screenshot %s", page, got.Figures, got.Charts, got.SummaryRows, shot)
}

// TestHistoryInBrowser opens a page with the hand-built history's section (history_test.go) in
// the browser: its sparklines are charts like any other, so none may be empty, and the section
// must fetch nothing and raise no error.
func TestHistoryInBrowser(t *testing.T) {
	b := newBrowser(t)
	s, err := report.Load(filepath.Join("testdata", "results"))
	require.NoError(t, err)
	s.History = report.NewHistory(handHistory(t))
	sparks := 0
	for _, r := range s.History.Rows {
		if r.Spark != "" {
			sparks++
		}
	}
	require.Positive(t, sparks, "sparklines in the hand-built history = 0; want some to check")
	var h bytes.Buffer
	require.NoError(t, report.WriteHTML(&h, s, time.Now()))
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	require.NoError(t, os.WriteFile(page, h.Bytes(), 0o644))
	got := b.check(t, page, filepath.Join(dir, "report.png"))
	for _, p := range got.Problems {
		t.Error(p)
	}
	figures := 0
	for _, row := range report.Rows(s) {
		figures += len(row.Figures)
	}
	assert.Equal(t, figures+sparks, got.Charts, "charts in the browser = %d; want %d, the results' %d and the history's %d sparklines", got.Charts, figures+sparks, figures, sparks)
}

// TestPageCheckCatchesBrokenPages runs the checks on small pages, each broken in one way, so
// that TestPageInBrowser passing means something.
func TestPageCheckCatchesBrokenPages(t *testing.T) {
	b := newBrowser(t)
	const chart = `<figure data-source="eventloop/good.json"><svg class="chart" viewBox="0 0 100 50">` +
		`<rect class="mark" x="10" y="10" width="20" height="30"/></svg></figure>`
	for _, tc := range []struct {
		name, body string
		want       string // in one of the problems; "" for none
	}{
		{"a page that draws", chart, ""},
		{"an empty chart", chart + `<figure data-source="eventloop/empty.json"><svg class="chart" viewBox="0 0 100 50">` +
			`<line x1="0" y1="40" x2="100" y2="40" stroke="black"/></svg></figure>`,
			`marks of non-zero size in the chart of eventloop/empty.json = 0 (of 0 .mark); want at least 1`},
		{"marks of no size", chart + `<figure data-source="eventloop/flat.json"><svg class="chart" viewBox="0 0 100 50">` +
			`<rect class="mark" x="10" y="10" width="0" height="0"/></svg></figure>`,
			`marks of non-zero size in the chart of eventloop/flat.json = 0 (of 1 .mark)`},
		{"a console.error", chart + `<script>console.error("drawn", 2, "times")</script>`,
			`console.error = "drawn 2 times"; want none`},
		{"a failed console.assert", chart + `<script>console.assert(1 === 2, "one is two")</script>`,
			`console.assert = "one is two"; want none`},
		{"an uncaught exception", chart + `<script>throw new Error("no data")</script>`,
			`uncaught exception = "Uncaught Error: no data"; want none`},
		{"an image from the network", chart + `<img src="http://example.invalid/logo.png">`,
			`request = http://example.invalid/logo.png; want only file: and data: URLs`},
		{"a result a chart could not read", chart + `<p class="error">eventloop/x.json: no trials</p>`,
			`p.error on the page = "eventloop/x.json: no trials"; want none`},
		{"no figures", `<p>nothing drawn</p>`, `figures = 0; want at least 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := filepath.Join(t.TempDir(), "page.html")
			require.NoError(t, os.WriteFile(page, []byte("<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>"+tc.body+"</body></html>"), 0o644))
			got := b.check(t, page, "")
			t.Logf("problems: %q", got.Problems)
			if tc.want == "" {
				assert.Empty(t, got.Problems, "problems on a page that draws = %q; want none", got.Problems)
				assert.Equal(t, 1, got.Figures, "figures = %d; want 1", got.Figures)
				return
			}
			found := false
			for _, p := range got.Problems {
				found = found || strings.Contains(p, tc.want)
			}
			assert.True(t, found, "problems = %q; want one containing %q", got.Problems, tc.want)
		})
	}
}

// browser is one headless Chromium; each check opens the page in a tab of its own.
type browser struct{ ctx context.Context }

// chromiumMissing is the skip message where no chromium is on PATH.
const chromiumMissing = "chromium is not on PATH: Debian's chromium package, which make setup installs where apt-get works"

// newBrowser starts Chromium with a fresh profile, or skips the test when there is none. The
// flags keep it from reaching the network on its own (updates, sync, QUIC), so that any request
// seen is the page's.
func newBrowser(t *testing.T) browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip(chromiumMissing)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		// Chromium makes its singleton's folder in TMPDIR and leaves it when it is ended.
		chromedp.Env("TMPDIR="+t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	require.NoError(t, chromedp.Do(bctx), "starting %s", path)
	return browser{ctx: bctx}
}

// pageCheck is what the browser found on one page.
type pageCheck struct {
	Figures, Charts, SummaryRows int
	// Problems are what is wrong with the page, each as `what = got; want want`.
	Problems []string
}

// dom is what the page's script reports of the page once it has loaded.
type dom struct {
	Figures     int        `json:"figures"`
	SummaryRows int        `json:"summaryRows"`
	Charts      []domChart `json:"charts"`
	Errors      []string   `json:"errors"`
}

type domChart struct {
	Source string `json:"source"`
	Marks  int    `json:"marks"`
	Sized  int    `json:"sized"`
}

// domScript measures every chart's marks (getBBox: a mark with neither width nor height drew
// nothing) and collects what the page shows as errors.
const domScript = `(() => {
	const charts = [...document.querySelectorAll('svg.chart')].map(svg => {
		const fig = svg.closest('figure');
		const marks = [...svg.querySelectorAll('.mark')];
		const sized = marks.filter(m => { const b = m.getBBox(); return b.width > 0 || b.height > 0; });
		return {source: fig ? (fig.dataset.source || '(no data-source)') : '(outside a figure)', marks: marks.length, sized: sized.length};
	});
	return {
		figures: document.querySelectorAll('figure').length,
		summaryRows: document.querySelectorAll('table.summary tbody tr').length,
		charts,
		errors: [...document.querySelectorAll('p.error')].map(p => p.textContent.trim()),
	};
})()`

// check opens page (a file) in a new tab, and returns what it found there; shot, unless empty,
// gets a screenshot of the whole page.
func (b browser) check(t *testing.T, page, shot string) pageCheck {
	t.Helper()
	abs, err := filepath.Abs(page)
	require.NoError(t, err)
	var (
		mu       sync.Mutex
		problems []string
	)
	add := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	// Events arrive on chromedp's reading goroutine: the listener only records them.
	listen := func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				add("console.%s = %q; want none (%s)", ev.Type, argsText(ev.Args), stackTop(ev.StackTrace))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			text := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				text += " " + strings.SplitN(d.Exception.Description, "\n", 2)[0]
			}
			add("uncaught exception = %q; want none (%s:%d)", text, d.URL, d.LineNumber+1)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				add("log entry (%s) = %q; want no error (%s)", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if u, err := url.Parse(ev.Request.URL); err != nil || (u.Scheme != "file" && u.Scheme != "data") {
				add("request = %s; want only file: and data: URLs (the page must open offline: nothing is fetched)", ev.Request.URL)
			}
		}
	}
	tab, closeTab := chromedp.NewContext(b.ctx, chromedp.WithListener(listen))
	defer closeTab()
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate((&url.URL{Scheme: "file", Path: abs}).String())), "opening %s", abs)
	d, err := chromedp.Run(tab, chromedp.Evaluate[dom](domScript))
	require.NoError(t, err, "measuring %s", abs)
	if shot != "" {
		png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
		require.NoError(t, err, "screenshot of %s", abs)
		require.NoError(t, os.WriteFile(shot, png, 0o644))
	}

	c := pageCheck{Figures: d.Figures, Charts: len(d.Charts), SummaryRows: d.SummaryRows}
	mu.Lock()
	c.Problems = append(c.Problems, problems...)
	mu.Unlock()
	if d.Figures == 0 {
		c.Problems = append(c.Problems, "figures = 0; want at least 1 (no chart drew any result)")
	}
	for _, ch := range d.Charts {
		if ch.Sized == 0 {
			c.Problems = append(c.Problems, fmt.Sprintf("marks of non-zero size in the chart of %s = 0 (of %d .mark); want at least 1", ch.Source, ch.Marks))
		}
	}
	for _, e := range d.Errors {
		c.Problems = append(c.Problems, fmt.Sprintf("p.error on the page = %q; want none (a result a chart could not read)", e))
	}
	return c
}

// argsText is a console call's arguments as the console prints them: strings bare, other
// values as JSON or by their description, space-separated.
func argsText(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		var s string
		if len(a.Value) > 0 && json.Unmarshal(a.Value, &s) == nil {
			parts = append(parts, s)
		} else if len(a.Value) > 0 {
			parts = append(parts, string(a.Value))
		} else {
			parts = append(parts, a.Description)
		}
	}
	return strings.Join(parts, " ")
}

// stackTop is where a console call was made.
func stackTop(st *runtime.StackTrace) string {
	if st == nil || len(st.CallFrames) == 0 {
		return "no stack"
	}
	f := st.CallFrames[0]
	return fmt.Sprintf("%s:%d", f.URL, f.LineNumber+1)
}
