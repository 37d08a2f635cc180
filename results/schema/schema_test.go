package schema

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSchemaIsGenerated fails when the schema file is not what the Go types generate: a result
// type changed and `go generate ./results/schema` was not run, or the file was edited by hand.
func TestSchemaIsGenerated(t *testing.T) {
	want, err := Generate()
	require.NoError(t, err)
	got, err := os.ReadFile(File)
	require.NoError(t, err)
	assert.True(t, string(got) == string(want),
		"%s differs from what the result types generate (%d bytes; want %d): run go generate ./results/schema", File, len(got), len(want))
}
