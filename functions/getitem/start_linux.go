package main

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// sinceProcessStart is how long ago the kernel started this process: CLOCK_BOOTTIME now less
// /proc/self/stat's starttime, which counts clock ticks since boot on the same clock.
func sinceProcessStart() (time.Duration, error) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, err
	}
	ticks, err := startTicks(string(stat))
	if err != nil {
		return 0, err
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0, err
	}
	return time.Duration(ts.Nano()) - time.Duration(ticks)*time.Second/clockTicks, nil
}
