package webrouter

// Where the router places a request: the environment its policy picks among those with room
// under the endpoint's limit, which a young endpoint keeps low, and the room it gives back.

import (
	mrand "math/rand/v2"
	"slices"
)

// acquire takes a slot in the environment the policy picks, or returns -1 at once, counting a
// throttled request, when no environment has a free slot; cpu says the request is a /cpu.
func (r *Router) acquire(client string, cpu bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	env := r.pick(client)
	if env < 0 {
		r.throttled++
		return -1
	}
	r.inFlight[env]++
	if cpu {
		r.cpus[env]++
	}
	if r.cfg.Policy == Sticky {
		r.sticky[client] = env
	}
	return env
}

func (r *Router) release(env int, cpu bool) {
	r.mu.Lock()
	r.inFlight[env]--
	if cpu {
		r.cpus[env]--
	}
	r.mu.Unlock()
}

// dynamicLimit is every environment's limit now, before CPUBusyLimit: the ceiling, or on a young
// endpoint YoungLimit grown in a straight line with the requests served, reaching the ceiling at
// MatureAfter. r.mu is held.
func (r *Router) dynamicLimit() int {
	if r.cfg.YoungLimit == 0 {
		return r.limit
	}
	served := 0
	for _, n := range r.served {
		served += n
	}
	if served >= r.cfg.MatureAfter {
		return r.limit
	}
	return r.cfg.YoungLimit + (r.limit-r.cfg.YoungLimit)*served/r.cfg.MatureAfter
}

// limitOf is env's limit now: the dynamic limit, or CPUBusyLimit while a /cpu runs in it, never
// above the dynamic limit. r.mu is held.
func (r *Router) limitOf(env int) int {
	if r.cfg.CPUBusyLimit > 0 && r.cpus[env] > 0 {
		return min(r.dynamicLimit(), r.cfg.CPUBusyLimit)
	}
	return r.dynamicLimit()
}

// pick chooses an environment with a free slot by the policy, or -1 when none has one. r.mu is
// held.
func (r *Router) pick(client string) int {
	var free []int
	for i, n := range r.inFlight[:r.running] {
		if r.cfg.IgnoreConcurrencyLimit || n < r.limitOf(i) {
			free = append(free, i)
		}
	}
	if len(free) == 0 && r.running < len(r.inFlight) {
		// Every running environment is full: scale out to the next one.
		r.running++
		free = []int{r.running - 1}
	}
	if len(free) == 0 {
		return -1
	}
	switch r.cfg.Policy {
	case Random:
		return free[mrand.IntN(len(free))]
	case CoLocate:
		best := free[0]
		for _, i := range free {
			if r.inFlight[i] > r.inFlight[best] {
				best = i
			}
		}
		if r.inFlight[best] == 0 {
			r.turn = (r.turn + 1) % r.running
			best = r.turn
		}
		return best
	case Sticky:
		if i, ok := r.sticky[client]; ok && slices.Contains(free, i) {
			return i
		}
	}
	least := []int{free[0]}
	for _, i := range free[1:] {
		switch {
		case r.inFlight[i] < r.inFlight[least[0]]:
			least = []int{i}
		case r.inFlight[i] == r.inFlight[least[0]]:
			least = append(least, i)
		}
	}
	return least[mrand.IntN(len(least))]
}
