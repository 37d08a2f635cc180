package report

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
)

// The JSON below is written as the experiments write it (results/family/threadpool.go), as
// literal text rather than through the charts' own structs, so that a field a chart misreads
// shows here.

// tpEntry is a result of family held in memory as results.Read leaves one: its parts raw JSON
// ("" leaves a part out).
func tpEntry(family, parameters, target, summary, trials string) Entry {
	raw := func(s string) any {
		if s == "" {
			return nil
		}
		return json.RawMessage(s)
	}
	return Entry{Path: "threadpool/TestX--node24.json", Result: results.Result{
		Experiment: "TestX/node24", Family: family, Mode: results.ModeLocal, Claims: []string{"P3"},
		Environment: results.Environment{Node: "v24.22.3", Cores: 2},
		Parameters:  raw(parameters), Target: raw(target), Summary: raw(summary), Trials: raw(trials),
	}}
}

// tpDraw draws e with its family's chart and requires figures.
func tpDraw(t *testing.T, e Entry) []Figure {
	t.Helper()
	figs, err := charts[e.Result.Family](e)
	require.NoError(t, err, "drawing %s", e.Result.Family)
	require.NotEmpty(t, figs, "figures of %s", e.Result.Family)
	return figs
}

var tpMarkTag = regexp.MustCompile(`<(rect|circle|polyline) class="mark"[^>]*? fill="([^"]*)"`)

// tpMarks counts a figure's data marks by element (rect, circle) and by fill.
func tpMarks(f Figure) (byElement, byFill map[string]int) {
	byElement, byFill = map[string]int{}, map[string]int{}
	for _, m := range tpMarkTag.FindAllStringSubmatch(string(f.SVG), -1) {
		byElement[m[1]]++
		byFill[m[2]]++
	}
	return byElement, byFill
}

// tpTotal is the number of marks in a count.
func tpTotal(n map[string]int) int {
	total := 0
	for _, k := range n {
		total += k
	}
	return total
}

// tpDashed counts a figure's dashed lines.
func tpDashed(f Figure) int { return strings.Count(string(f.SVG), "stroke-dasharray") }

const tpWavesParams = `{"trials":2,"jobMs":150,"iterations":430486,"configs":[` +
	`{"config":"4 jobs, 4 slots","jobs":4,"uvThreadpoolSize":"4"},{"config":"8 jobs, 4 slots","jobs":8,"uvThreadpoolSize":"4"},` +
	`{"config":"8 jobs, 8 slots","jobs":8,"uvThreadpoolSize":"8"}]}`

const tpWavesTrials = `[{"runs":[` +
	`{"config":"4 jobs, 4 slots","jobs":4,"uvThreadpoolSize":"4","endsMs":[301,302,305,307]},` +
	`{"config":"8 jobs, 4 slots","jobs":8,"uvThreadpoolSize":"4","endsMs":[315,317,321,325,700,703,703,704]},` +
	`{"config":"8 jobs, 8 slots","jobs":8,"uvThreadpoolSize":"8","endsMs":[690,700,701,702,705,706,708,710]}]},` +
	`{"runs":[` +
	`{"config":"8 jobs, 8 slots","jobs":8,"uvThreadpoolSize":"8","endsMs":[691,699,700,702,704,707,709,712]},` +
	`{"config":"8 jobs, 4 slots","jobs":8,"uvThreadpoolSize":"4","endsMs":[310,318,320,326,701,702,705,707]},` +
	`{"config":"4 jobs, 4 slots","jobs":4,"uvThreadpoolSize":"4","endsMs":[300,303,304,306]}]}]`

func TestThreadpoolWavesMarkEveryJobEnd(t *testing.T) {
	e := tpEntry("threadpool.waves", tpWavesParams, "", `{"configs":[],"totalRatio":1,"expectedTotalRatio":1,"cores":2}`, tpWavesTrials)
	figs := tpDraw(t, e)
	require.Len(t, figs, 1)
	elements, _ := tpMarks(figs[0])
	assert.Equal(t, 40, elements["rect"], "job marks = %d; want 40, one per job end in the trials (4+8+8 jobs, 2 trials)", elements["rect"])
	assert.Equal(t, 40, tpTotal(elements), "marks = %d; want only the 40 job ends", tpTotal(elements))
	// 4 jobs on 4 slots: one wave; 8 on 4: two; 8 on 8: one; and the legend's key.
	assert.Equal(t, 5, tpDashed(figs[0]), "dashed lines = %d; want 4 wave ends and 1 legend key", tpDashed(figs[0]))
	assert.Contains(t, string(figs[0].SVG), "8 jobs, 4 slots, trial 2, job 8: ends 707.0 ms", "the last job of trial 2 is drawn at its own end")
	assert.Contains(t, figs[0].Caption, "all 2 trials are overlaid", "the caption says which trials are drawn")
	assert.NotContains(t, figs[0].Title, e.Runtime(), "title = %q; want no runtime", figs[0].Title)
}

func TestThreadpoolWaveEndsShareTheCores(t *testing.T) {
	for _, c := range []struct {
		jobs, slots, cores int
		want               []float64
	}{
		{4, 4, 2, []float64{300}},      // four jobs at once on two cores: twice a job
		{8, 4, 2, []float64{300, 600}}, // two waves of that
		{8, 8, 2, []float64{600}},      // one wave, the same total
		{5, 4, 8, []float64{150, 300}}, // a core each; the fifth job alone
		{8, 8, 0, []float64{150}},      // no core count: each job runs on its own
	} {
		got := tpWaveEnds(c.jobs, c.slots, c.cores, 150)
		assert.Equal(t, c.want, got, "tpWaveEnds(%d jobs, %d slots, %d cores, 150 ms) = %v; want %v", c.jobs, c.slots, c.cores, got, c.want)
	}
}

func TestThreadpoolAPITableDrawsOneRowPerAPI(t *testing.T) {
	summary := `{"table":[` +
		`{"api":"fs.stat","docs":"uses the pool","measured":"uses the pool","agree":true},` +
		`{"api":"dns.lookup","docs":"uses the pool","measured":"waited in 1/2 runs","agree":false},` +
		`{"api":"dns.resolve4","docs":"does not use the pool","measured":"does not use the pool","agree":true}],` +
		`"rowsAgreeing":{"k":2,"n":3}}`
	run := func(lookupWaited bool) string {
		w := "false"
		if lookupWaited {
			w = "true"
		}
		return `{"heavyJobs":4,"iterations":94711,"rows":[` +
			`{"api":"fs.stat","docs":"uses the pool","completedMs":56.4,"heavyDoneBefore":1,"waitedForSlot":true},` +
			`{"api":"dns.lookup","docs":"uses the pool","completedMs":48.2,"heavyDoneBefore":1,"waitedForSlot":` + w + `},` +
			`{"api":"dns.resolve4","docs":"does not use the pool","completedMs":12.2,"heavyDoneBefore":0,"waitedForSlot":false}]}`
	}
	e := tpEntry("threadpool.apiTable", `{"runs":2,"heavyJobs":4,"jobMs":60,"iterations":94711,"uvThreadpoolSize":"4"}`, "",
		summary, "["+run(true)+","+run(false)+"]")
	figs := tpDraw(t, e)
	require.Len(t, figs, 1)
	svgText := string(figs[0].SVG)
	for _, api := range []string{"fs.stat", "dns.lookup", "dns.resolve4"} {
		n := strings.Count(svgText, ">"+api+"</text>")
		assert.Equal(t, 1, n, "rows labelled %s = %d; want 1 (one row per API)", api, n)
	}
	elements, fills := tpMarks(figs[0])
	assert.Equal(t, 15, tpTotal(elements), "cells = %d; want 3 APIs x (docs, measured, agree, 2 runs)", tpTotal(elements))
	// Yes: fs.stat's docs, measured and both runs, dns.lookup's docs and its first run.
	assert.Equal(t, 6, fills[tpYes], "cells filled 'uses the pool / waited' = %d; want 6", fills[tpYes])
	assert.Equal(t, 1, fills[tpMixed], "mixed cells = %d; want 1, dns.lookup's measured 1/2", fills[tpMixed])
	assert.Equal(t, 1, fills[tpDisagree], "disagreeing cells = %d; want 1, dns.lookup's", fills[tpDisagree])
	assert.Contains(t, svgText, ">48.2 ms, 1/4 jobs</text>", "a run's cell shows its completion time and the jobs done before it")
}

func TestThreadpoolEntryShowsEachFormOnEachRuntime(t *testing.T) {
	target := `{"nodes":[` +
		`{"path":"/n24","version":"v24.22.3","major":24,"openssl":"3.5.9","uv":"1.52.1","source":"make setup"},` +
		`{"path":"/n20","version":"v20.20.2","major":20,"openssl":"3.0.19","uv":"1.46.0","source":"PATH"}],` +
		`"forms":[{"name":"CommonJS","script":"testdata/threadpool/entry-set-inside.cjs"},{"name":"ES module","script":"testdata/threadpool/entry-set-inside.mjs"}],` +
		`"env":{"LAB_SET_POOL_SIZE":"8"}}`
	trials := `[` +
		`{"node":"v24.22.3","form":"CommonJS","script":"a.cjs","slots":8,"honored":true},` +
		`{"node":"v24.22.3","form":"ES module","script":"a.mjs","slots":8,"honored":true},` +
		`{"node":"v20.20.2","form":"CommonJS","script":"a.cjs","slots":8,"honored":true},` +
		`{"node":"v20.20.2","form":"ES module","script":"a.mjs","slots":4,"honored":false}]`
	e := tpEntry("threadpool.entry", `{"setPoolSize":8}`, target, `{"ignored":{"k":1,"n":4},"outcomes":[]}`, trials)
	figs := tpDraw(t, e)
	require.Len(t, figs, 1)
	elements, fills := tpMarks(figs[0])
	assert.Equal(t, 4, tpTotal(elements), "cells = %d; want 4, one per form and runtime", tpTotal(elements))
	assert.Equal(t, 1, fills[tpDisagree], "ignored cells = %d; want 1, Node 20's ES module", fills[tpDisagree])
	svgText := string(figs[0].SVG)
	assert.Contains(t, svgText, ">4 slots: ignored</text>", "the ignored cell says what the pool had")
	assert.Less(t, strings.Index(svgText, "Node v20.20.2"), strings.Index(svgText, "Node v24.22.3"), "columns: Node 20 before Node 24")
}

func TestThreadpoolSlotsDrawEachRoundAndTheThreads(t *testing.T) {
	rounds := `[{"jobs":1,"heavyDoneBeforeStat":0,"statWaited":false},{"jobs":2,"heavyDoneBeforeStat":0,"statWaited":false},` +
		`{"jobs":3,"heavyDoneBeforeStat":0,"statWaited":false},{"jobs":4,"heavyDoneBeforeStat":1,"statWaited":true}]`
	trials := `[{"slots":4,"rounds":` + rounds + `,"threads":{"total":11,"byName":{"MainThread":1,"V8Worker":4,"libuv-worker":4,"other":2}}},` +
		`{"slots":null,"rounds":[{"jobs":1,"heavyDoneBeforeStat":0,"statWaited":false}],"threads":{"total":11,"byName":{"node":11}}}]`
	e := tpEntry("threadpool.slots", `{"runs":2,"maxJobs":5,"holdMs":200,"want":4}`, `{"node":{},"script":"testdata/threadpool/lab.js","env":{}}`,
		`{"counts":[4,null],"countsAgreeing":{"k":1,"n":2}}`, trials)
	figs := tpDraw(t, e)
	require.Len(t, figs, 2)
	elements, fills := tpMarks(figs[0])
	assert.Equal(t, 5, tpTotal(elements), "round cells = %d; want 5, one per round in the trials", tpTotal(elements))
	assert.Equal(t, 1, fills[tpYes], "rounds whose stat waited = %d; want 1", fills[tpYes])
	assert.Contains(t, string(figs[0].SVG), "= 4 slots", "a count's result is written beside its row")
	assert.Contains(t, string(figs[0].SVG), "no count", "a count that found none says so")
	assert.Contains(t, figs[0].Title, "UV_THREADPOOL_SIZE unset", "title = %q; want the setting", figs[0].Title)
	elements, _ = tpMarks(figs[1])
	assert.Equal(t, 5, tpTotal(elements), "thread segments = %d; want 5, one per name in each count", tpTotal(elements))
}

func TestThreadpoolPoolThreadsDrawBeforeAndAfter(t *testing.T) {
	trials := `{"poolThreads":1024,"before":{"total":7,"byName":{"node":7}},"after":{"total":1031,"byName":{"node":7,"libuv-worker":1024}}}`
	e := tpEntry("threadpool.poolThreads", `{"requested":2000,"max":1024}`, "", `{"poolThreads":1024}`, trials)
	figs := tpDraw(t, e)
	require.Len(t, figs, 1)
	elements, _ := tpMarks(figs[0])
	assert.Equal(t, 3, tpTotal(elements), "thread segments = %d; want 3 (before: node; after: node, libuv-worker)", tpTotal(elements))
	assert.Equal(t, 2, tpDashed(figs[0]), "dashed lines = %d; want 2, libuv's maximum and the size asked for", tpDashed(figs[0]))
	assert.Contains(t, string(figs[0].SVG), "libuv&#39;s maximum, 1024")
}

func TestThreadpoolBlockingDrawsEachRunAndItsMedian(t *testing.T) {
	m := `{"workMs":150,"cpuMs":151,"blockedMs":150,"samples":35,"intervalMs":1,"method":"timer-drift"}`
	a := `{"workMs":150,"cpuMs":153,"blockedMs":1,"samples":160,"intervalMs":1,"method":"timer-drift"}`
	for _, c := range []struct {
		name, params, trials string
		dots, bars           int
	}{
		{"pbkdf2, Sync and async", `{"op":"pbkdf2","reps":3,"jobMs":150,"iterations":1}`,
			`[{"sync":` + m + `,"async":` + a + `},{"sync":` + m + `,"async":` + a + `},{"sync":` + m + `,"async":` + a + `}]`, 18, 6},
		{"JSON.parse, Sync only", `{"op":"json","reps":3,"bytes":12900000}`,
			`[{"sync":` + m + `,"records":1},{"sync":` + m + `,"records":1},{"sync":` + m + `,"records":1}]`, 9, 3},
	} {
		e := tpEntry("threadpool.blocking", c.params, "", `{}`, c.trials)
		figs := tpDraw(t, e)
		require.Len(t, figs, 1, c.name)
		elements, _ := tpMarks(figs[0])
		assert.Equal(t, c.dots, elements["circle"], "%s: dots = %d; want %d, work, CPU and blocked of each run each way", c.name, elements["circle"], c.dots)
		assert.Equal(t, c.bars, elements["rect"], "%s: median bars = %d; want %d", c.name, elements["rect"], c.bars)
	}
}

func TestThreadpoolInterferenceDrawsEachTrialUnderEachLoad(t *testing.T) {
	trial := `{"alone":{"readMs":0.6,"loadDoneBeforeRead":0,"loadCalls":0},"gzip":{"readMs":205,"loadDoneBeforeRead":5,"loadCalls":8},` +
		`"lookup":{"readMs":0.9,"loadDoneBeforeRead":0,"loadCalls":16},"resolve4":{"readMs":0.5,"loadDoneBeforeRead":0,"loadCalls":16}}`
	params := `{"trials":3,"uvThreadpoolSize":"4","gzipJobs":8,"gzipBytes":2097152,"gzipChunkBytes":0,"names":16,"nameDelayMs":50,"loadSettleMs":5,"slowResolver":"x","roomyPool":"16"}`
	pool := "[" + trial + "," + trial + "," + trial + "]"
	for _, c := range []struct {
		name, trials string
		dots         int
	}{
		{"P6, with the roomy pool", `{"pool":` + pool + `,"roomyPool":` + pool + `}`, 24},
		{"P7, the pool alone", `{"pool":` + pool + `}`, 12},
	} {
		e := tpEntry("threadpool.interference", params, "", `{"oneLookupMs":54.8}`, c.trials)
		figs := tpDraw(t, e)
		require.Len(t, figs, 1, c.name)
		elements, _ := tpMarks(figs[0])
		assert.Equal(t, c.dots, elements["circle"], "%s: dots = %d; want %d, one per trial, load and pool", c.name, elements["circle"], c.dots)
		assert.Equal(t, c.dots/3, elements["rect"], "%s: median bars = %d; want %d", c.name, elements["rect"], c.dots/3)
		assert.Equal(t, 2, tpDashed(figs[0]), "%s: dashed lines = %d; want one lookup's time and its key", c.name, tpDashed(figs[0]))
	}
}

func TestThreadpoolSyncPathDrawsEverySample(t *testing.T) {
	round := `{"round":1,"order":"startup,request","idlePingMs":[1,2,3],"idleP50Ms":2,` +
		`"startup":{"pingMs":[0.5,0.6,0.7],"pingP50Ms":0.6,"workAnswered":2000,"workInWindow":1990,"workHandlerP50Ms":0.004},` +
		`"request":{"pingMs":[100,200,300],"pingP50Ms":200,"workAnswered":31,"workInWindow":27,"workHandlerMs":[95,97],"workHandlerP50Ms":96},"evidential":true}`
	params := `{"rounds":2,"fileBytes":33554432,"loaders":2,"pingsPerRound":3,"pingEveryMs":30}`
	e := tpEntry("threadpool.syncPath", params, "", `{"startupReadMs":94}`, "["+round+","+round+"]")
	figs := tpDraw(t, e)
	require.Len(t, figs, 1)
	elements, _ := tpMarks(figs[0])
	assert.Equal(t, 22, elements["circle"], "dots = %d; want 22: 6 idle, 6 start-up and 6 request-path /ping, 4 reads", elements["circle"])
	assert.Equal(t, 4, elements["rect"], "median bars = %d; want 4, one per category", elements["rect"])
	assert.Contains(t, string(figs[0].SVG), "the start-up read, once: 94.0 ms")
}

func TestThreadpoolChartsRefuseMalformedResults(t *testing.T) {
	for _, c := range []struct{ name, family, params, trials string }{
		{"waves: trials not a list", "threadpool.waves", tpWavesParams, `"runs"`},
		{"waves: no trials", "threadpool.waves", tpWavesParams, `[]`},
		{"waves: cut short", "threadpool.waves", tpWavesParams, `[{"runs":[{"endsMs":[1,`},
		{"apiTable: no table", "threadpool.apiTable", `{"heavyJobs":4}`, `[]`},
		{"entry: slots a string", "threadpool.entry", `{"setPoolSize":8}`, `[{"node":"v24","form":"CommonJS","slots":"eight","honored":true}]`},
		{"slots: no trials", "threadpool.slots", `{"maxJobs":5,"want":4}`, `[]`},
		{"poolThreads: no threads", "threadpool.poolThreads", `{"requested":2000,"max":1024}`, `{}`},
		{"blocking: parameters cut short", "threadpool.blocking", `{"op":`, `[]`},
		{"interference: no pool trials", "threadpool.interference", `{}`, `{"pool":[]}`},
		{"syncPath: pings not numbers", "threadpool.syncPath", `{}`, `[{"idlePingMs":["fast"]}]`},
	} {
		e := tpEntry(c.family, c.params, `{}`, `{}`, c.trials)
		figs, err := charts[c.family](e)
		assert.Error(t, err, "%s: chart = %d figures, nil error; want an error", c.name, len(figs))
	}
}

func TestThreadpoolChartsDrawTheSampleResults(t *testing.T) {
	for _, e := range sampleEntries(t, "threadpool") {
		figs, err := charts[e.Result.Family](e)
		if !assert.NoError(t, err, "%s: chart error", e.Path) {
			continue
		}
		assert.NotEmpty(t, figs, "%s: figures = 0; want at least one", e.Path)
		for _, f := range figs {
			elements, _ := tpMarks(f)
			assert.NotZero(t, tpTotal(elements), "%s %q: marks = 0; want the data drawn", e.Path, f.Title)
			assert.NotContains(t, f.Title, e.Runtime(), "%s: title = %q; want no runtime (the page shows the variant)", e.Path, f.Title)
		}
		if e.Result.Family == "threadpool.waves" {
			// Every job end of every trial is one mark.
			var trials []struct{ Runs []struct{ EndsMs []float64 } }
			require.NoError(t, Decode(e.Result.Trials, &trials))
			jobs := 0
			for _, tr := range trials {
				for _, r := range tr.Runs {
					jobs += len(r.EndsMs)
				}
			}
			elements, _ := tpMarks(figs[0])
			assert.Equal(t, jobs, tpTotal(elements), "%s: job marks = %d; want %d, the job ends in its trials", e.Path, tpTotal(elements), jobs)
		}
	}
}
