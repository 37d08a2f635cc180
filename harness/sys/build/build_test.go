package build

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/repo"
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

// TestRunWaitsForTheBuildInProgress: a build started while another process holds its target's
// LockFile runs only once that one is done; a build for another target does not wait.
func TestRunWaitsForTheBuildInProgress(t *testing.T) {
	name, err := repo.Path(LockFile(runtime.GOARCH))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
	// Another open file of the lock holds it, as another test binary's Run would.
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX))

	_, err = Run("other", exec.Command("true"))
	require.NoError(t, err, "a build for another target")

	done := make(chan error, 1)
	go func() {
		_, err := Run(runtime.GOARCH, exec.Command("true"))
		done <- err
	}()
	select {
	case err := <-done:
		assert.Fail(t, "Run returned while the lock was held", "err = %v; want it to wait", err)
		return
	case <-time.After(300 * time.Millisecond):
	}
	require.NoError(t, f.Close()) // closing the file releases the lock
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(30 * time.Second):
		assert.Fail(t, "Run still waits 30 s after the lock was released")
	}
}
