package loopback

import (
	"io"
	"net"
	"strconv"
	"syscall"
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

// TestAReservedPortStaysHeldWhileItsServerIsDown: between a stand-in's going down and its coming
// back, no other socket binds its port, and a client's connection is refused as to a closed port.
func TestAReservedPortStaysHeldWhileItsServerIsDown(t *testing.T) {
	if !canHold {
		t.Skip("holding a port needs Linux's SO_REUSEPORT; elsewhere a Reservation is FreeAddrs' address")
	}
	r, err := Reserve()
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })

	for round := range 2 { // up, down; and up, down again
		l, err := r.Listen()
		require.NoError(t, err, "round %d: listening on the reserved %s", round, r.Addr())
		c, err := net.Dial("tcp", r.Addr())
		require.NoError(t, err, "round %d: dialing the server", round)
		_ = c.Close()
		require.NoError(t, l.Close())

		_, err = net.Dial("tcp", r.Addr())
		assert.ErrorIs(t, err, syscall.ECONNREFUSED, "round %d: dialing %s while its server is down; want refused", round, r.Addr())
		for name, bind := range map[string]func() (io.Closer, error){
			"net.Listen":                   func() (io.Closer, error) { return net.Listen("tcp", r.Addr()) },
			"another Reservation's holder": func() (io.Closer, error) { return holdPort(port(t, r.Addr())) },
		} {
			other, err := bind()
			if err == nil {
				_ = other.Close()
			}
			assert.ErrorIs(t, err, syscall.EADDRINUSE, "round %d: %s on the reserved %s while its server is down; want it taken", round, name, r.Addr())
		}
	}

	require.NoError(t, r.Close())
	l, err := net.Listen("tcp", r.Addr())
	require.NoError(t, err, "listening on %s once the reservation is closed", r.Addr())
	_ = l.Close()
}

// port is addr's port.
func port(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	n, err := strconv.Atoi(p)
	require.NoError(t, err)
	return n
}
