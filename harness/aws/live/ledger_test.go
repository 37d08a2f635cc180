package live

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ledgerChildEnv, set, makes this test binary a child process of TestTwoProcessesShareOneLedger
// (TestMain): it adds ledgerChildBills bills of ledgerBill to the ledger the variable names, and
// exits, running no test.
const ledgerChildEnv = "CLAIMS_TEST_LEDGER_CHILD"

const (
	ledgerChildBills = 150
	ledgerBill       = 0.0001
)

// TestMain runs the tests, or in a child process the child's bills.
func TestMain(m *testing.M) {
	if path := os.Getenv(ledgerChildEnv); path != "" {
		os.Exit(ledgerChild(path))
	}
	os.Exit(m.Run())
}

// ledgerChild adds the child's bills to the ledger at path; its exit status says whether each
// was taken.
func ledgerChild(path string) int {
	l, err := OpenLedger(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for range ledgerChildBills {
		if _, err := l.Add(ledgerBill); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// TestTwoProcessesShareOneLedger runs two processes that add their bills to one ledger at the
// same time, while this one adds its own from two goroutines: the total is every bill, none
// lost to another writer's read-modify-write.
func TestTwoProcessesShareOneLedger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var children []*exec.Cmd
	for range 2 {
		cmd := exec.CommandContext(ctx, os.Args[0])
		cmd.Env = append(os.Environ(), ledgerChildEnv+"="+path)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		})
		children = append(children, cmd)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*ledgerChildBills)
	for range 2 {
		wg.Go(func() {
			l := &Ledger{path: path} // each its own, as another process's would be
			for range ledgerChildBills {
				if _, err := l.Add(ledgerBill); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	for i, cmd := range children {
		require.NoError(t, cmd.Wait(), "child process %d: %s", i, cmd.Stdout)
	}
	billed, err := (&Ledger{path: path}).Billed()
	require.NoError(t, err)
	want := 4 * ledgerChildBills * ledgerBill
	// Sums of 600 bills of 0.0001 in float64 differ from 0.06 by far less than one bill: a lost
	// update would be off by a whole bill or more.
	assert.InDelta(t, want, billed, ledgerBill/100, "ledger total = %v; want %v (2 processes and 2 goroutines × %d bills of %v)", billed, want, ledgerChildBills, ledgerBill)
}

// TestSessionsSharingALedgerGetWhatRemains: a second session (another process of the run) is
// admitted only for what the first left of the cap, and stops invoking once the run's bills
// together pass it, though its own tally is nothing.
func TestSessionsSharingALedgerGetWhatRemains(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	c := Config{Arch: ArchARM64, MaxUSD: 0.01, Ledger: path}
	first, err := Open(t.Context(), c, offline())
	require.NoError(t, err)
	first.spend(0.008)

	second, err := Open(t.Context(), c, offline())
	require.NoError(t, err)
	var out strings.Builder
	over := Estimate{USD: 0.004}
	err = second.Admit(over, &out)
	require.Error(t, err, "an estimate of $0.004 was admitted with $0.002 of the $0.01 cap left (output:\n%s)", out.String())
	assert.ErrorContains(t, err, "remains of the cap")
	assert.ErrorContains(t, err, path)
	assert.Contains(t, out.String(), "$0.0020 remains")
	require.NoError(t, second.Admit(Estimate{USD: 0.001}, &out), "an estimate within what remains")

	f := &Function{Name: "claims-" + second.RunID + "-f", MemoryMB: 128, arch: ArchARM64, timeoutSeconds: 3, s: second}
	first.spend(0.003) // the run now billed $0.011
	assert.Zero(t, second.Spent(), "the second session's own tally")
	_, err = f.Invoke(t.Context(), nil)
	require.Error(t, err, "an invocation started after the run's bills passed the cap")
	assert.ErrorContains(t, err, "the run's processes so far billed $0.0110")
	assert.ErrorContains(t, err, EnvMaxUSD)
}

// TestACorruptLedgerIsRefused: a ledger that is not the run's is refused naming its file, when a
// session opens and, written over later, at Admit and before an invocation: nothing is made or
// invoked on a cap that cannot be read.
func TestACorruptLedgerIsRefused(t *testing.T) {
	for _, bad := range []string{"not json", `{"billedUsd": -1}`, `{"billedUsd": "0.1"}`, `{"billedUsd": 0.1`} {
		path := filepath.Join(t.TempDir(), "ledger.json")
		c := Config{Arch: ArchARM64, MaxUSD: 0.01, Ledger: path}
		require.NoError(t, os.WriteFile(path, []byte(bad), 0o600))
		_, err := OpenLedger(path)
		require.Error(t, err, "ledger %q was read", bad)
		assert.ErrorContains(t, err, path, "the error names the ledger's file")
		_, err = Open(t.Context(), c, offline())
		assert.ErrorContains(t, err, path, "a session on ledger %q", bad)

		require.NoError(t, os.WriteFile(path, []byte(`{"billedUsd": 0.001}`), 0o600))
		s, err := Open(t.Context(), c, offline())
		require.NoError(t, err, "a good ledger")
		require.NoError(t, os.WriteFile(path, []byte(bad), 0o600))
		err = s.Admit(Estimate{USD: 0.001}, &strings.Builder{})
		require.Error(t, err, "Admit on ledger %q", bad)
		assert.ErrorContains(t, err, path)
		f := &Function{Name: "claims-" + s.RunID + "-f", MemoryMB: 128, arch: ArchARM64, timeoutSeconds: 3, s: s}
		_, err = f.Invoke(t.Context(), nil)
		require.Error(t, err, "Invoke on ledger %q", bad)
		assert.ErrorContains(t, err, path)
		_, err = (&Ledger{path: path}).Add(0.001)
		assert.ErrorContains(t, err, path, "adding to ledger %q", bad)
		data, _ := os.ReadFile(path)
		assert.Equal(t, bad, string(data), "a corrupt ledger is left as it was, for a person to read")
	}
}

// TestTheLedgerSetting: CLAIMS_LIVE_LEDGER is read from the environment and must be absolute;
// a missing or empty file is nothing billed.
func TestTheLedgerSetting(t *testing.T) {
	isolateAWS(t)
	dir := t.TempDir()
	t.Setenv(EnvLedger, "ledger.json")
	_, err := ConfigFromEnv()
	assert.ErrorContains(t, err, EnvLedger+` = "ledger.json": want an absolute path`)

	path := filepath.Join(dir, "ledger.json")
	t.Setenv(EnvLedger, path)
	c, err := ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, path, c.Ledger)
	l, err := OpenLedger(path)
	require.NoError(t, err)
	billed, err := l.Billed()
	require.NoError(t, err)
	assert.Zero(t, billed, "a ledger not yet written")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	total, err := l.Add(0.25)
	require.NoError(t, err)
	assert.Equal(t, 0.25, total, "an empty ledger plus a bill")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(string(data)), `{"billedUsd":`), "}"), 64)
	require.NoError(t, err, "ledger file %q", data)
	assert.Equal(t, 0.25, f)
	_, err = l.Add(-1)
	assert.ErrorContains(t, err, "want a bill of zero or more")
}
