package lambdalocal

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShareForMemory(t *testing.T) {
	good := []struct {
		memoryMB int
		want     float64
	}{
		{128, 0.07236}, // the article's function: "about 7% of a vCPU"
		{1769, 1},
		{3538, 2},
		{10240, 5.79},
	}
	for _, c := range good {
		got, err := ShareForMemory(c.memoryMB)
		require.NoError(t, err, "memory = %d MB", c.memoryMB)
		assert.InDelta(t, c.want, got, 0.005, "ShareForMemory(%d) = %g; want %g", c.memoryMB, got, c.want)
	}
	for _, bad := range []int{-1, 0, 64, 127, 10241, 1 << 20} {
		got, err := ShareForMemory(bad)
		assert.ErrorContains(t, err, fmt.Sprintf("memory = %d MB: want 128 to 10240", bad), "ShareForMemory(%d) = %g", bad, got)
	}
}
