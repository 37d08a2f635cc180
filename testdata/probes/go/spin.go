package main

import "time"

// sink keeps the spin's result alive so the compiler cannot drop the loop.
var sink uint64

// calibrateSpin measures how many spin iterations take one millisecond. It keeps the fastest of
// several short rounds, because a busy machine can only slow a round down: the fastest round is
// the one closest to what the loop costs when it has a core to itself.
func calibrateSpin() uint64 {
	const rounds, perRound = 7, 2_000_000
	var best time.Duration
	for i := 0; i < rounds; i++ {
		t0 := time.Now()
		sink += spin(perRound)
		if d := time.Since(t0); best == 0 || d < best {
			best = d
		}
	}
	perMs := uint64(float64(perRound) * float64(time.Millisecond) / float64(best))
	if perMs == 0 {
		perMs = 1
	}
	return perMs
}
