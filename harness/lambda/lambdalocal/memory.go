package lambdalocal

import "fmt"

// FullVCPUMemoryMB is the memory size at which a Lambda function gets one whole vCPU. AWS gives
// CPU in proportion to memory, so a function gets memory / 1769 of a vCPU: 128 MB is about 7.2%,
// the "little CPU" claim T5 blames for the slow TLS handshake.
const FullVCPUMemoryMB = 1769

// Lambda's memory limits: a function's memory size is a whole number of MB in this range.
const (
	minMemoryMB = 128
	maxMemoryMB = 10240
)

// ShareForMemory is the share of one CPU a Lambda function with memoryMB of memory gets:
// 0.0724 for 128 MB, 1 for 1769 MB, 5.79 for 10240 MB, the Share of the cgroup.Quota that
// Options.Quota runs an environment under. It is an error outside Lambda's range of memory
// sizes, so that a typo in a setting cannot become a quota nobody meant. cgroup.New still
// refuses a share of more CPU than this machine has (above 2 cores, from 3538 MB on a 2-core
// machine): such a function cannot be emulated here.
func ShareForMemory(memoryMB int) (float64, error) {
	if memoryMB < minMemoryMB || memoryMB > maxMemoryMB {
		return 0, fmt.Errorf("memory = %d MB: want %d to %d", memoryMB, minMemoryMB, maxMemoryMB)
	}
	return float64(memoryMB) / FullVCPUMemoryMB, nil
}
