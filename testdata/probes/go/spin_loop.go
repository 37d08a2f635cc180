//go:build !brokenspincalls

package main

// spin runs iters rounds of xorshift arithmetic. The loop body calls no function, so it has no
// cooperative preemption point: only the runtime's asynchronous preemption can interrupt it.
//
//go:noinline
func spin(iters uint64) uint64 {
	x := uint64(88172645463325252)
	for i := uint64(0); i < iters; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}
