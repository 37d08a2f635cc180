package report

// The waves chart (threadpool.waves, P3 and P4): when each job ended, against the waves a pool
// of so many slots makes on this many cores.

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/serverless-claims/claims/report/svg"
	"github.com/serverless-claims/claims/results/family"
)

// tpWaveEnds is when each wave of jobs equal pure-CPU jobs of jobMs ends in a pool of slots on
// cores CPUs: a wave runs min(slots, jobs left) at once, sharing the cores.
func tpWaveEnds(jobs, slots, cores int, jobMs float64) []float64 {
	var ends []float64
	t := 0.0
	for left := jobs; left > 0; {
		w := min(slots, left)
		share := w
		if cores > 0 {
			share = min(cores, w)
		}
		t += jobMs * float64(w) / float64(share)
		ends = append(ends, t)
		left -= w
	}
	return ends
}

// tpWavesChart draws every job's end in every trial, one band per configuration, one line per
// trial in it, with where the waves of pure CPU work would end.
func tpWavesChart(e Entry) ([]Figure, error) {
	var (
		params  family.WavesParameters
		summary family.WavesSummary
		trials  []family.WaveTrial
	)
	if err := decodeParts(e, &params, &summary, &trials); err != nil {
		return nil, err
	}
	if len(trials) == 0 {
		return nil, errors.New("threadpool.waves: no trials")
	}
	configs := params.Configs
	if len(configs) == 0 {
		for _, r := range trials[0].Runs {
			configs = append(configs, r.WaveConfig)
		}
	}
	cores := cmp.Or(summary.Cores, e.Result.Environment.Cores)

	// The domain: every end and every expected wave's end.
	maxMs := 0.0
	for _, tr := range trials {
		for _, r := range tr.Runs {
			for _, end := range r.EndsMs {
				maxMs = max(maxMs, end)
			}
		}
	}
	if maxMs == 0 {
		return nil, errors.New("threadpool.waves: no job ends in the trials")
	}
	for _, cf := range configs {
		maxMs = max(maxMs, slices.Max(append([]float64{0}, tpWaveEnds(cf.Jobs, tpSlots(cf.Size), cores, float64(params.JobMs))...)))
	}

	const (
		left, right, top = 118.0, 16.0, 30.0
		line, pad        = 9.0, 8.0
	)
	band := float64(len(trials))*line + 2*pad
	height := top + float64(len(configs))*band + 46
	c := svg.New(tpWidth, height, "Each job's end by pool configuration, every trial")
	x := svg.Scale{D0: 0, D1: svg.Nice(maxMs), R0: left, R1: tpWidth - right}
	lx := c.Legend(left, 14, svg.LegendItem{Colour: svg.Series[0], Label: "a job ends (a line per trial)"})
	tpDashedKey(c, lx, 14, "a wave of pure CPU work ends")

	for i, cf := range configs {
		y0 := top + float64(i)*band
		if i%2 == 0 {
			c.Rect(left, y0, x.R1-left, band, "#f4f4f4")
		}
		c.Text(left-8, y0+band/2-2, svg.End, cf.Config)
		c.Text(left-8, y0+band/2+11, svg.End, "size "+tpShownSize(cf.Size))
		for _, end := range tpWaveEnds(cf.Jobs, tpSlots(cf.Size), cores, float64(params.JobMs)) {
			c.Line(x.At(end), y0+2, x.At(end), y0+band-2, svg.Ink, true)
		}
		for t, tr := range trials {
			j := slices.IndexFunc(tr.Runs, func(r family.WaveRun) bool { return r.Config == cf.Config })
			if j < 0 {
				continue
			}
			y := y0 + pad + float64(t)*line
			for k, end := range tr.Runs[j].EndsMs {
				c.Bar(x.At(end)-1.25, y, 2.5, line-2, tpRGBA(svg.Series[0], 0.75),
					fmt.Sprintf("%s, trial %d, job %d: ends %.1f ms", cf.Config, t+1, k+1, end))
			}
		}
	}
	c.XAxis(x, top+float64(len(configs))*band, 8, svg.Format(0), "time since the batch started (ms)")

	coresText := fmt.Sprintf("%d cores", cores)
	if cores == 0 {
		coresText = "as many cores as jobs (the result names no core count)"
	}
	return []Figure{{
		Title: "Pool waves: when each job ends, by pool size",
		Caption: fmt.Sprintf("Each mark is one job's end, in ms after its batch started; all %d trials are overlaid, "+
			"one thin line each (trial 1 at the top of its band). Dashed: where each wave would end if the jobs were "+
			"pure CPU of %s ms each sharing %s, the pool running as many at once as it has slots.",
			len(trials), svg.Format(0)(float64(params.JobMs)), coresText),
		SVG:   c.HTML(),
		Entry: e,
	}}, nil
}
