package cgroup

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"time"
)

// DefaultPeriod is the CFS period a zero Quota.Period stands for: the kernel's own default. The
// quota is enforced per period, so a shorter one throttles in finer steps and a longer one lets
// a process run longer before it is stopped.
const DefaultPeriod = 100 * time.Millisecond

// The kernel refuses CFS periods outside this range with EINVAL.
const (
	minPeriod = time.Millisecond
	maxPeriod = time.Second
)

// MinQuota is the smallest CFS quota the kernel takes (a period's Share × Period); below it New
// and SetShare get the kernel's EINVAL. Callers that choose a period for a small share can check
// it first.
const MinQuota = time.Millisecond

// Quota is the CPU a group's processes may use together.
type Quota struct {
	// Share is the number of CPUs' worth of time the group gets per period: 0.0724 is 7.24% of
	// one CPU, 2 is two whole CPUs. It must be more than 0 and at most the CPUs this process may
	// run on (runtime.NumCPU): a quota above that could never be reached. The kernel also refuses a
	// quota (Share × Period) below 1ms, so small shares need a long enough period (128 MB's
	// share needs 14ms or more).
	Share float64
	// Period is the CFS period over which the quota is enforced; zero means DefaultPeriod. The
	// kernel takes whole microseconds from 1ms to 1s.
	Period time.Duration
}

// normalize fills in the default period and checks q against the kernel's limits, so that a bad
// setting is reported by its field's name rather than as the kernel's bare "invalid argument".
func (q Quota) normalize() (Quota, error) {
	if q.Period == 0 {
		q.Period = DefaultPeriod
	}
	if q.Period < minPeriod || q.Period > maxPeriod || q.Period%time.Microsecond != 0 {
		return q, fmt.Errorf("cgroup: Quota.Period = %v: want whole microseconds from %v to %v (the kernel's limits), or 0 for %v",
			q.Period, minPeriod, maxPeriod, DefaultPeriod)
	}
	if cpus := runtime.NumCPU(); !(q.Share > 0) || q.Share > float64(cpus) {
		return q, fmt.Errorf("cgroup: Quota.Share = %g: want more than 0 and at most %d (the CPUs this process may use)", q.Share, cpus)
	}
	return q, nil
}

// micros is the quota and the period in the kernel's unit.
func (q Quota) micros() (quota, period int64) {
	period = q.Period.Microseconds()
	return int64(math.Round(q.Share * float64(period))), period
}

// setting is one cgroup file and the value written to it.
type setting struct{ file, value string }

// The largest CPU weight each version takes: cpu.shares on v1 (the default is 1024), cpu.weight
// on v2 (the default is 100).
const (
	maxSharesV1 = 262144
	maxWeightV2 = 10000
)

// quotaSettings is what sets q in a group of the given cgroup version, in the order to write it:
// on v1 the period goes first, while the new group's quota is still unlimited, because the
// kernel checks each write against the other file's current value.
//
// The group also gets the largest CPU weight. The quota is only a ceiling: on a machine busy
// with other work the group's processes would get less than their share, by as much as the
// other work takes, and a measurement would depend on what else runs. With the largest weight
// the scheduler serves the group first, up to its quota, so that the share is also, as far as
// the kernel can make it, a floor: the emulated function gets its share whatever else runs. The
// quota bounds what the weight can take from the rest of the machine. The weight counts among a group's
// siblings only: in a delegated subtree (see place) the subtree's own weight, not this one, is
// what other work on the machine competes with, so there the share is less of a floor (measured
// on this repository's machine, in a v1 group root gave a user, beside another test binary's
// root-level groups: a one-thread loop under a quota of every CPU got 0.31 and 0.44 of a CPU).
func quotaSettings(version int, q Quota) []setting {
	quota, period := q.micros()
	if version == 2 {
		return []setting{
			{"cpu.max", fmt.Sprintf("%d %d", quota, period)},
			{"cpu.weight", strconv.Itoa(maxWeightV2)},
		}
	}
	return []setting{
		{"cpu.cfs_period_us", strconv.FormatInt(period, 10)},
		{"cpu.cfs_quota_us", strconv.FormatInt(quota, 10)},
		{"cpu.shares", strconv.Itoa(maxSharesV1)},
	}
}

// describedFiles are the files Describe reports, in its order.
func describedFiles(version int) []string {
	if version == 2 {
		return []string{"cpu.max", "cpu.weight"}
	}
	return []string{"cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.shares"}
}
