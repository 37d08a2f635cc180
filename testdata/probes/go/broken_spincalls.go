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

// step is not a leaf: the compiler leaves the stack check (the preemption point) out of small
// leaf functions, so a loop calling only a leaf would be as unpreemptible as no call at all.
//
//go:noinline
func step(x uint64) uint64 { return mix(x) ^ 1 }

//go:noinline
func mix(x uint64) uint64 {
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	return x
}
