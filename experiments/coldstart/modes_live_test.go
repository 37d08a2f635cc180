//go:build lambda

package coldstart

// localPlatform says the claim tests run on the local platform; with -tags lambda they run on
// the live one (live_test.go), which builds for Lambda's architecture as it creates functions.
const localPlatform = false
