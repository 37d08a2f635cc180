package cgroup

import "fmt"

// LambdaFullVCPUMemoryMB is the memory size at which a Lambda function gets one whole vCPU. AWS
// gives CPU in proportion to memory, so a function gets memory / 1769 of a vCPU: 128 MB is about
// 7.2%, the "little CPU" claim T5 blames for the slow TLS handshake.
const LambdaFullVCPUMemoryMB = 1769

// Lambda's memory limits: a function's memory size is a whole number of MB in this range.
const (
	minLambdaMemoryMB = 128
	maxLambdaMemoryMB = 10240
)

// ShareForMemory is the share of one CPU a Lambda function with memoryMB of memory gets:
// 0.0724 for 128 MB, 1 for 1769 MB, 5.79 for 10240 MB. It is an error outside Lambda's range
// of memory sizes, so that a typo in a setting cannot become a quota nobody meant.
func ShareForMemory(memoryMB int) (float64, error) {
	if memoryMB < minLambdaMemoryMB || memoryMB > maxLambdaMemoryMB {
		return 0, fmt.Errorf("memory = %d MB: want %d to %d", memoryMB, minLambdaMemoryMB, maxLambdaMemoryMB)
	}
	return float64(memoryMB) / LambdaFullVCPUMemoryMB, nil
}

// QuotaForMemory is the Quota that gives a process the CPU a Lambda function with memoryMB of
// memory gets, over the default period. New still refuses it when the share is more CPU than
// this machine has (above 2 cores, from 3538 MB on a 2-core machine): such a function cannot be
// emulated here.
func QuotaForMemory(memoryMB int) (Quota, error) {
	share, err := ShareForMemory(memoryMB)
	if err != nil {
		return Quota{}, err
	}
	return Quota{Share: share}, nil
}
