package report

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/claim/results"
	"github.com/serverless-claims/claims/report/svg"
)

// The JSON below is written as the experiments write it (results/family/eventloop.go), not
// through the chart's own types, so that a field the chart misreads shows here.

// elTwoCPU is a two-cpu pattern's parameters.
const elTwoCPU = `{"pattern":"two-cpu","steps":[{"name":"cpu","kind":"cpu","path":"/cpu?ms=500","offsetMs":0},` +
	`{"name":"cpu2","kind":"cpu","path":"/cpu?ms=500","offsetMs":50},{"name":"ping","kind":"ping","path":"/ping","offsetMs":65}],` +
	`"trials":3,"spinMs":500,"pauseMs":200,"warmupPings":20}`

// elReq is one request as a result holds it; env is the answering process's envId and also its
// logstream, received and finished its times on that process's clock.
func elReq(name, kind string, sent, done float64, env string, received, finished float64) string {
	path := "/ping"
	if kind == "cpu" {
		path = "/cpu?ms=500"
	}
	return fmt.Sprintf(`{"name":%q,"kind":%q,"path":%q,"offsetMs":0,"sentMs":%g,"doneMs":%g,"latencyMs":%g,"status":200,`+
		`"answer":{"envId":%q,"pid":1,"receivedAt":%g,"finishedAt":%g},"envHint":%q}`,
		name, kind, path, sent, done, done-sent, env, received, finished, "log-"+env)
}

// elEntry is a result of family held in memory as results.Read leaves one: its parts raw JSON.
func elEntry(family, parameters, summary, trials string) Entry {
	return Entry{Path: "eventloop/TestX.json", Result: results.Result{
		Experiment: "TestX", Family: family, Mode: results.ModeLocal, Claims: []string{"W3"},
		Parameters: json.RawMessage(parameters), Summary: json.RawMessage(summary), Trials: json.RawMessage(trials),
	}}
}

var elMark = regexp.MustCompile(`<rect class="mark"[^>]* fill="(#[0-9a-fA-F]{6})"`)

// elMarksByFill counts the bars of a chart by colour.
func elMarksByFill(f Figure) map[string]int {
	n := map[string]int{}
	for _, m := range elMark.FindAllStringSubmatch(string(f.SVG), -1) {
		n[m[1]]++
	}
	return n
}

// elKinds counts the requests of a result's trials by kind.
func elKinds(t *testing.T, trials string) map[string]int {
	t.Helper()
	var trs []struct{ Requests []struct{ Kind string } }
	require.NoError(t, json.Unmarshal([]byte(trials), &trs))
	n := map[string]int{}
	for _, tr := range trs {
		for _, q := range tr.Requests {
			n[q.Kind]++
		}
	}
	return n
}

func TestEventloopChartColoursEachRequest(t *testing.T) {
	// One process: trial 0's /ping waited for both /cpu, trial 1's for none (a Go probe), and
	// trial 2's reached the process before any /cpu did (not evidential).
	trials := `[` +
		`{"index":0,"requests":[` + elReq("cpu", "cpu", 0, 501, "p", 1000, 1500) + `,` + elReq("cpu2", "cpu", 50, 1002, "p", 1500, 2000) + `,` +
		elReq("ping", "ping", 65, 1003, "p", 2001, 2001.1) + `],"wait":{"coLocated":2,"inFlight":2,"waitedFor":2,"evidential":true}},` +
		`{"index":1,"requests":[` + elReq("cpu", "cpu", 0, 501, "p", 3000, 3500) + `,` + elReq("cpu2", "cpu", 50, 551, "p", 3050, 3550) + `,` +
		elReq("ping", "ping", 65, 66, "p", 3065, 3065.1) + `],"wait":{"coLocated":2,"inFlight":2,"waitedFor":0,"evidential":true}},` +
		`{"index":2,"requests":[` + elReq("cpu", "cpu", 0, 501, "p", 5000, 5500) + `,` + elReq("cpu2", "cpu", 50, 551, "p", 5050, 5550) + `,` +
		elReq("ping", "ping", 1, 2, "p", 4990, 4990.1) + `],"wait":{"coLocated":2,"inFlight":0,"waitedFor":0,"evidential":false}}]`
	figs, err := charts["eventloop"](elEntry("eventloop", elTwoCPU, `{}`, trials))
	require.NoError(t, err)
	require.Len(t, figs, 1)
	marks, kinds := elMarksByFill(figs[0]), elKinds(t, trials)
	assert.Equal(t, kinds["cpu"], marks[svg.CPU], "/cpu bars = %d; want %d, one per /cpu request", marks[svg.CPU], kinds["cpu"])
	assert.Equal(t, kinds["ping"], marks[svg.Ping]+marks[svg.PingWaited]+marks[svg.PingElsewhere],
		"/ping bars = %v; want %d, one per /ping request", marks, kinds["ping"])
	assert.Equal(t, 1, marks[svg.PingWaited], "waited /ping bars = %d; want 1 (trial 0's wait.waitedFor = 2)", marks[svg.PingWaited])
	assert.Equal(t, 0, marks[svg.PingElsewhere], "/ping bars in another environment = %d; want 0 (one process)", marks[svg.PingElsewhere])
	svgText := string(figs[0].SVG)
	for _, want := range []string{">waited<", ">did not wait<", ">not evidential<", ">938.0 ms<"} {
		assert.Contains(t, svgText, want, "chart text = %q; want it to hold %q", svgText, want)
	}
	assert.Contains(t, figs[0].Caption, "two-cpu: /cpu?ms=500 at 0, /cpu?ms=500 at 50, /ping at 65 ms (spin 500 ms)",
		"caption = %q; want the pattern's steps and spin", figs[0].Caption)
	assert.True(t, strings.HasPrefix(figs[0].Title, "W3: two /cpu, then /ping;"), "title = %q; want the claim and what each trial sent first", figs[0].Title)
	assert.NotContains(t, figs[0].Caption, "client's sent", "caption = %q; want no fallback note (every request has the probe's times)", figs[0].Caption)
}

func TestEventloopChartPutsTheProbesClockOnTheTrials(t *testing.T) {
	// The probe's clock is 1000 ms ahead of the trial's: the /cpu, received first, starts at its
	// send (0), and the /ping keeps its place 500 ms later on the same clock.
	var tr elTrial
	require.NoError(t, json.Unmarshal([]byte(`{"index":0,"requests":[`+elReq("cpu", "cpu", 0.5, 501, "p", 1000, 1500)+`,`+
		elReq("ping", "ping", 15, 502, "p", 1500.5, 1500.6)+`]}`), &tr))
	bars, fallbacks := elBarsOf(tr, svg.PingWaited)
	require.Len(t, bars, 2)
	assert.Equal(t, 0, fallbacks, "fallbacks = %d; want 0", fallbacks)
	assert.InDelta(t, 0.5, bars[0].from, 1e-9, "/cpu starts at %.3f ms; want 0.5 (its send: the least shift)", bars[0].from)
	assert.InDelta(t, 500.5, bars[0].to, 1e-9, "/cpu ends at %.3f ms; want 500.5", bars[0].to)
	assert.InDelta(t, 501, bars[1].from, 1e-9, "/ping starts at %.3f ms; want 501 (500.5 ms after the /cpu, one clock)", bars[1].from)
}

func TestEventloopChartFallsBackToTheClientsTimes(t *testing.T) {
	trials := `[{"index":0,"requests":[` + elReq("cpu", "cpu", 0, 501, "p", 1000, 1500) + `,` +
		`{"name":"ping","kind":"ping","path":"/ping","offsetMs":15,"sentMs":15,"doneMs":502,"latencyMs":487,"status":200,"answer":{"envId":"p","pid":1}}` +
		`],"wait":{"coLocated":1,"inFlight":1,"waitedFor":1,"evidential":true}}]`
	params := `{"pattern":"one-cpu","steps":[{"name":"cpu","kind":"cpu","path":"/cpu?ms=500","offsetMs":0},{"name":"ping","kind":"ping","path":"/ping","offsetMs":15}],"trials":1,"spinMs":500,"pauseMs":200,"warmupPings":20}`
	figs, err := charts["eventloop"](elEntry("eventloop", params, `{}`, trials))
	require.NoError(t, err)
	require.Len(t, figs, 1)
	assert.Contains(t, figs[0].Caption, "1 request(s) without the probe's times are drawn from the client's sent to done",
		"caption = %q; want the fallback named", figs[0].Caption)
	assert.Equal(t, 1, elMarksByFill(figs[0])[svg.PingWaited], "waited /ping bars = %v; want 1, drawn from the client's times", elMarksByFill(figs[0]))
}

// elRouted is a routed trial: its requests (cpu in cpuEnvs, ping in pingEnv, environments "1",
// "2") and its placement.
func elRouted(index int, cpuEnvs []int, pingEnv int, other bool, pingWaited bool) string {
	var reqs []string
	coLocated := 0
	for i, env := range cpuEnvs {
		name := "cpu"
		if i > 0 {
			name = "cpu2"
		}
		start := float64(1000 + 500*i)
		reqs = append(reqs, elReq(name, "cpu", float64(50*i), float64(50*i)+501, fmt.Sprint(env), start, start+500))
		if env == pingEnv {
			coLocated++
		}
	}
	received := 1065.0
	if pingWaited {
		received = 2001
	}
	reqs = append(reqs, elReq("ping", "ping", 65, 66, fmt.Sprint(pingEnv), received, received+0.1))
	envs, _ := json.Marshal(cpuEnvs)
	return fmt.Sprintf(`{"index":%d,"requests":[%s],"placement":{"cpuEnvs":%s,"pingEnv":%d,"otherExisted":%t,"pingCoLocated":%d,`+
		`"agree":true,"pingAfterCpu":%t,"pingWaited":%t,"pingBesideBusy":false}}`,
		index, strings.Join(reqs, ","), envs, pingEnv, other, coLocated, coLocated > 0, pingWaited)
}

// elRoutingSummaryJSON is a routing summary with n environments; the chart reads only that.
func elRoutingSummaryJSON(n int) string {
	return fmt.Sprintf(`{"ping":{"n":3,"p50Ms":1,"p95Ms":1,"maxMs":1,"minMs":1,"meanMs":1},"environments":%d,`+
		`"otherExisted":{"k":3,"n":3},"pingElsewhere":{"k":1,"n":3},"everyEnvBusy":{"k":1,"n":3},"pingWaited":{"k":1,"n":1},`+
		`"pingBesideBusy":{"k":0,"n":3},"idsAgree":{"k":3,"n":3},"envIdsSeen":%d,"logstreamsInRun":%d}`, n, n, n)
}

func TestRoutingChartColoursByPlacement(t *testing.T) {
	// Trial 0: the /cpu in 1 and 2, the /ping beside the first, waited. Trial 1: both /cpu in 1
	// while 2 existed, the /ping in 2. Trial 2: both /cpu in 1, the /ping in 2 again, no other
	// environment known to exist at the time.
	trials := "[" + elRouted(0, []int{1, 2}, 1, true, true) + "," + elRouted(1, []int{1, 1}, 2, true, false) + "," +
		elRouted(2, []int{1, 1}, 2, false, false) + "]"
	e := elEntry("eventloop.routing", elTwoCPU, elRoutingSummaryJSON(2), trials)
	e.Result.Target = json.RawMessage(`{"runtime":"node","endpoint":"local router","auth":"IamAuth","maxEnvironments":2,"maxConcurrencyPerEnvironment":64}`)
	figs, err := charts["eventloop.routing"](e)
	require.NoError(t, err)
	require.Len(t, figs, 1)
	assert.True(t, strings.HasPrefix(figs[0].Title, "W3, Node probe: two /cpu, then /ping;"), "title = %q; want the claim, the probe and the pattern", figs[0].Title)
	marks, kinds := elMarksByFill(figs[0]), elKinds(t, trials)
	assert.Equal(t, kinds["cpu"], marks[svg.CPU], "/cpu bars = %d; want %d, one per /cpu request", marks[svg.CPU], kinds["cpu"])
	assert.Equal(t, 1, marks[svg.PingWaited], "waited /ping bars = %d; want 1 (trial 0's placement.pingWaited)", marks[svg.PingWaited])
	assert.Equal(t, 2, marks[svg.PingElsewhere], "/ping bars in another environment = %d; want 2 (trials 1 and 2: pingCoLocated 0)", marks[svg.PingElsewhere])
	assert.Equal(t, 0, marks[svg.Ping], "plain /ping bars = %d; want 0", marks[svg.Ping])
	svgText := string(figs[0].SVG)
	for _, want := range []string{">co-located<", ">two on one side<", ">another environment<"} {
		assert.Contains(t, svgText, want, "chart text = %q; want it to hold %q", svgText, want)
	}
	assert.Equal(t, 1, strings.Count(svgText, ">two on one side<"), "rows saying two on one side = %d; want 1 (trial 2 had no other environment)",
		strings.Count(svgText, ">two on one side<"))
	assert.Contains(t, figs[0].Caption, "2 environments seen", "caption = %q; want the environments counted", figs[0].Caption)
}

func TestRoutingChartSaysThrottled(t *testing.T) {
	// One trial: the /cpu in 1 and 2, the /ping throttled (no environment, no answer).
	ping := `{"name":"ping","kind":"ping","path":"/ping","offsetMs":65,"sentMs":65,"doneMs":66,"latencyMs":1,"status":429,"throttled":true,` +
		`"answer":{"envId":"","pid":0,"receivedAt":0,"finishedAt":0}}`
	trial := `{"index":0,"requests":[` + elReq("cpu", "cpu", 0, 1001, "1", 1000, 2000) + "," + elReq("cpu2", "cpu", 50, 1051, "2", 1000, 2000) + "," + ping + `],` +
		`"placement":{"cpuEnvs":[1,2],"pingEnv":0,"otherExisted":true,"pingCoLocated":0,"agree":true,"pingAfterCpu":false,"pingWaited":false,"pingBesideBusy":false,"pingThrottled":true}}`
	e := elEntry("eventloop.routing", elTwoCPU, elRoutingSummaryJSON(2), "["+trial+"]")
	e.Result.Target = json.RawMessage(`{"runtime":"go","endpoint":"local router","auth":"IamAuth","maxEnvironments":2,"maxConcurrencyPerEnvironment":1}`)
	figs, err := charts["eventloop.routing"](e)
	require.NoError(t, err)
	require.Len(t, figs, 1)
	svgText := string(figs[0].SVG)
	assert.Contains(t, svgText, ">/ping throttled (429)<", "chart text = %q; want the throttled /ping named", svgText)
	assert.NotContains(t, svgText, ">environment unknown<", "a throttled /ping is not one of unknown environment")
}

func TestConcurrencyChartDrawsBothSettings(t *testing.T) {
	params := strings.TrimSuffix(elTwoCPU, "}") + `,"defaultMaxConcurrencyPerEnvironment":64,"loweredMaxConcurrencyPerEnvironment":1}`
	def := "[" + elRouted(0, []int{1, 2}, 2, true, false) + "]"
	low := "[" + elRouted(0, []int{1, 2}, 1, true, true) + "," + elRouted(1, []int{2, 1}, 1, true, true) + "]"
	summary := fmt.Sprintf(`{"default":%s,"lowered":%s,"pingP50RatioLoweredToDefault":2,"pingFaster":false,"queuedPings":{"k":2,"n":2}}`,
		elRoutingSummaryJSON(2), elRoutingSummaryJSON(2))
	figs, err := charts["eventloop.concurrency"](elEntry("eventloop.concurrency", params, summary, `{"default":`+def+`,"lowered":`+low+`}`))
	require.NoError(t, err)
	require.Len(t, figs, 2)
	assert.NotEqual(t, figs[0].Title, figs[1].Title, "titles = %q and %q; want one per setting", figs[0].Title, figs[1].Title)
	assert.Contains(t, figs[0].Caption, "maxConcurrencyPerEnvironment 64 (default)", "default caption = %q", figs[0].Caption)
	assert.Contains(t, figs[1].Caption, "maxConcurrencyPerEnvironment 1 (lowered)", "lowered caption = %q", figs[1].Caption)
	for i, trials := range []string{def, low} {
		marks, kinds := elMarksByFill(figs[i]), elKinds(t, trials)
		assert.Equal(t, kinds["cpu"], marks[svg.CPU], "%s: /cpu bars = %d; want %d", figs[i].Title, marks[svg.CPU], kinds["cpu"])
		assert.Equal(t, kinds["ping"], marks[svg.Ping]+marks[svg.PingWaited]+marks[svg.PingElsewhere], "%s: /ping bars = %v; want %d", figs[i].Title, marks, kinds["ping"])
	}
	assert.Equal(t, 2, elMarksByFill(figs[1])[svg.PingWaited], "lowered: waited /ping bars = %v; want 2 (both queued)", elMarksByFill(figs[1]))
}

func TestEventloopChartsRefuseWhatTheyCannotRead(t *testing.T) {
	good := "[" + elRouted(0, []int{1, 2}, 1, true, true) + "]"
	for name, e := range map[string]Entry{
		"malformed trials":          elEntry("eventloop", elTwoCPU, `{}`, `[{"index":0,"requests":[`),
		"malformed parameters":      elEntry("eventloop", `{"pattern":`, `{}`, good),
		"no trials":                 elEntry("eventloop", elTwoCPU, `{}`, `[]`),
		"routing without placement": elEntry("eventloop.routing", elTwoCPU, elRoutingSummaryJSON(2), `[{"index":0,"requests":[`+elReq("ping", "ping", 0, 1, "1", 5, 5.1)+`]}]`),
		"routing malformed summary": elEntry("eventloop.routing", elTwoCPU, `{"environments":"two"}`, good),
		"malformed target": func() Entry {
			e := elEntry("eventloop", elTwoCPU, `{}`, good)
			e.Result.Target = json.RawMessage(`{"runtime":1}`)
			return e
		}(),
		"concurrency as a list": elEntry("eventloop.concurrency", elTwoCPU, `{}`, good),
	} {
		figs, err := charts[e.Result.Family](e)
		assert.Error(t, err, "%s: chart = %d figures, nil error; want an error", name, len(figs))
	}
}

func TestEventloopChartsDrawTheSampleResults(t *testing.T) {
	for _, e := range sampleEntries(t, "eventloop") {
		family := e.Result.Family
		figs, err := charts[family](e)
		if !assert.NoError(t, err, "%s: chart error", e.Path) {
			continue
		}
		assert.NotEmpty(t, figs, "%s: figures = 0; want at least one", e.Path)
		marks := map[string]int{}
		for _, f := range figs {
			assert.NotZero(t, strings.Count(string(f.SVG), `class="mark"`), "%s %q: marks = 0; want a bar per request", e.Path, f.Title)
			assert.NotContains(t, f.Title, e.Runtime(), "%s: title = %q; want no runtime (the page shows the variant)", e.Path, f.Title)
			for fill, n := range elMarksByFill(f) {
				marks[fill] += n
			}
		}
		kinds := elSampleKinds(t, e)
		assert.Equal(t, kinds["cpu"], marks[svg.CPU], "%s: /cpu bars = %d; want %d, one per /cpu request", e.Path, marks[svg.CPU], kinds["cpu"])
		assert.Equal(t, kinds["ping"], marks[svg.Ping]+marks[svg.PingWaited]+marks[svg.PingElsewhere],
			"%s: /ping bars = %v; want %d, one per /ping request", e.Path, marks, kinds["ping"])
	}
}

// elSampleKinds counts a result's requests by kind, both of W12's settings together.
func elSampleKinds(t *testing.T, e Entry) map[string]int {
	t.Helper()
	raw, ok := e.Result.Trials.(json.RawMessage)
	require.True(t, ok, "%s: trials are %T; want json.RawMessage", e.Path, e.Result.Trials)
	if e.Result.Family != "eventloop.concurrency" {
		return elKinds(t, string(raw))
	}
	var both map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &both))
	n := map[string]int{}
	for _, trials := range both {
		for kind, k := range elKinds(t, string(trials)) {
			n[kind] += k
		}
	}
	return n
}

func TestTickDecimalsTellTicksApart(t *testing.T) {
	for _, c := range []struct {
		ticks []float64
		want  int
	}{{[]float64{0, 100}, 0}, {[]float64{0, 1}, 0}, {[]float64{0, 0.5}, 1}, {[]float64{0, 0.1}, 1}, {[]float64{0, 0.05}, 2}, {[]float64{0}, 0}} {
		got := elTickDecimals(c.ticks)
		assert.Equal(t, c.want, got, "elTickDecimals(%v) = %d; want %d", c.ticks, got, c.want)
	}
}
