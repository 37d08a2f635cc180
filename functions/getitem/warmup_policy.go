//go:build !brokenwarmup

package main

// failInitOnWarmupError is false: a failed warm-up is reported and Init goes on (claim T4).
const failInitOnWarmupError = false
