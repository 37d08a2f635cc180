package live

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/standin/dynalite"
)

// helperEnv marks the child process of TestCtrlCDeletesWhatTheRunMade.
const helperEnv = "CLAIMS_LIVE_INTERRUPT_HELPER"

func TestCtrlCDeletesWhatTheRunMade(t *testing.T) {
	db := dynalite.Start(t, dynalite.Options{})
	c := defaultConfig()
	awsCfg := standinAWS(t, c, map[string]string{"DYNAMODB": db.Endpoint}, db.CA.Pool())
	probe, err := Open(t.Context(), c, awsCfg) // only for its DynamoDB client
	require.NoError(t, err)

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestInterruptHelper$", "-test.v")
	// The helper dies by the signal, before its t.TempDir's clean-up: its temporary folders go
	// under this test's, which this test removes.
	cmd.Env = append(os.Environ(), helperEnv+"=1", "CLAIMS_LIVE_TEST_CA="+db.CAFile, "TMPDIR="+t.TempDir())
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the helper ended without a signal:\n%s", out.String())
	status := exit.Sys().(syscall.WaitStatus)
	assert.True(t, status.Signaled() && status.Signal() == syscall.SIGINT, "helper's end = %v; want death by SIGINT (%s)", status, out.String())
	require.Contains(t, out.String(), "MADE claims-", "the helper made no table:\n%s", out.String())
	assert.Empty(t, tablesNamed(t, probe, NamePrefix), "tables left after Ctrl-C; helper's output:\n%s", out.String())
}

// TestInterruptHelper is the child of TestCtrlCDeletesWhatTheRunMade: a run that makes its table
// and is interrupted.
func TestInterruptHelper(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("run by TestCtrlCDeletesWhatTheRunMade")
	}
	pem, err := os.ReadFile(os.Getenv("CLAIMS_LIVE_TEST_CA"))
	require.NoError(t, err)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(pem))
	endpoint := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")
	awsCfg := standinAWS(t, defaultConfig(), map[string]string{"DYNAMODB": endpoint}, roots)
	s, err := Open(t.Context(), defaultConfig(), awsCfg)
	require.NoError(t, err)
	require.NoError(t, s.Admit(EstimateCost(s.Region, ArchARM64, nil, 0), &strings.Builder{}))
	name, err := s.Table(t.Context(), benchItem())
	require.NoError(t, err)
	fmt.Println("MADE", name)
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
	time.Sleep(30 * time.Second) // the signal's hook closes the session and ends the process
	t.Fatal("still alive 30 s after SIGINT")
}
