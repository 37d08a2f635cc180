package build

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGoOncePerBinary(t *testing.T) {
	a, err := Go("testdata/probes/go")
	require.NoError(t, err)
	b, err := Go("testdata/probes/go")
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.FileExists(t, a)

	v, err := Go("testdata/probes/go", "brokenserialize")
	require.NoError(t, err)
	assert.NotEqual(t, a, v, "a variant must not overwrite the built-in probe")
}

func TestSharedC(t *testing.T) {
	t.Run("builds a preloadable library once", func(t *testing.T) {
		if _, err := exec.LookPath("gcc"); err != nil {
			t.Skip("gcc is not on PATH: the C stand-ins cannot be built here")
		}
		p, err := SharedC("testdata/threadpool/slowdns/slowgai.c")
		require.NoError(t, err)
		assert.FileExists(t, p)
		again, err := SharedC("testdata/threadpool/slowdns/slowgai.c")
		require.NoError(t, err)
		assert.Equal(t, p, again)
	})
	t.Run("a missing compiler is named", func(t *testing.T) {
		t.Setenv("CC", "no-such-cc")
		_, err := SharedC("testdata/threadpool/slowdns/other.c")
		assert.ErrorContains(t, err, "no-such-cc")
	})
}

// goBuildTags are the build tags bin was built with.
func goBuildTags(t *testing.T, bin string) []string {
	t.Helper()
	tags, err := BinaryTags(bin)
	require.NoError(t, err)
	return tags
}

// TestFunctionsForTheEmulatorAreBuiltWithoutTheRPCMode: the emulator runs the binary Lambda runs,
// built with aws-lambda-go's lambda.norpc as harness/lambda/lambdazip builds it; other commands are not.
func TestFunctionsForTheEmulatorAreBuiltWithoutTheRPCMode(t *testing.T) {
	fn, err := Go("functions/throttle")
	require.NoError(t, err)
	got := goBuildTags(t, fn)
	assert.Equal(t, []string{NoRPC}, got, "build tags of functions/throttle = %v; want [%s] (go version -m)", got, NoRPC)

	variant, err := Go("functions/getitem", "brokentrace")
	require.NoError(t, err)
	got = goBuildTags(t, variant)
	assert.Equal(t, []string{NoRPC, "brokentrace"}, got, "build tags of functions/getitem -tags brokentrace = %v", got)

	probe, err := Go("testdata/probes/go")
	require.NoError(t, err)
	assert.Empty(t, goBuildTags(t, probe), "build tags of the Go probe: want none added")
}
