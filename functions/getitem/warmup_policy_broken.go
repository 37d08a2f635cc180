//go:build brokenwarmup

package main

// failInitOnWarmupError, in the deliberately broken build (-tags brokenwarmup), fails Init when
// the warm-up fails: what claim T4 warns against, and what its test must catch.
const failInitOnWarmupError = true
