package loopback

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFreeAddrsAreDistinct: the Lambda emulator's two servers get two ports. Found one at a time, the
// kernel now and then handed out the same free port twice, and the emulator died binding it.
func TestFreeAddrsAreDistinct(t *testing.T) {
	for range 500 {
		addrs, err := FreeAddrs(2)
		require.NoError(t, err)
		require.Len(t, addrs, 2)
		require.NotEqual(t, addrs[0], addrs[1], "FreeAddrs(2) = %v; want two different addresses", addrs)
	}
}

// TestFreeAddrsAreBelowTheEphemeralRange: no outgoing connection can take a port between
// FreeAddrs and the server's bind.
func TestFreeAddrsAreBelowTheEphemeralRange(t *testing.T) {
	lo, hi := belowEphemeral()
	if hi <= lo {
		t.Skipf("no port range below the ephemeral one: /proc/sys/net/ipv4/ip_local_port_range is unreadable or starts under %d", portFloor+100)
	}
	addrs, err := FreeAddrs(2)
	require.NoError(t, err)
	for _, a := range addrs {
		_, p, err := net.SplitHostPort(a)
		require.NoError(t, err)
		port, err := strconv.Atoi(p)
		require.NoError(t, err)
		assert.True(t, port >= lo && port < hi, "port = %d; want in [%d, %d), below the ephemeral range", port, lo, hi)
	}
}
