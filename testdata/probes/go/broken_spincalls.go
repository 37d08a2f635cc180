//go:build brokenspincalls

package main

// This file builds a deliberately broken probe for the experiments' sensitivity tests: the spin
// loop calls a function every round, so it has a cooperative preemption point and the scheduler
// can take the CPU from it even with asynchronous preemption off. TestGoWaitsWithoutPreemption
// (W10) must fail against it.

// spin runs iters rounds of xorshift arithmetic, one function call per round.
//
//go:noinline
func spin(iters uint64) uint64 {
	x := uint64(88172645463325252)
	for i := uint64(0); i < iters; i++ {
		x = step(x)
	}
	return x
}

//go:noinline
func step(x uint64) uint64 {
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	return x
}
