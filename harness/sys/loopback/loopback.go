// Package loopback finds loopback addresses for servers that bind them later: a process that
// cannot be handed a listening socket (FreeAddrs), or a stand-in that goes down and comes back on
// the same address (Reserve).
package loopback

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// FreeAddrs returns n loopback addresses, all different, with ports nothing listens on at the
// moment, for a server that binds them later (the Lambda emulator cannot be handed a listening
// socket; a server that goes down and comes back on its address wants Reserve), so there is a
// moment between this check and that bind in which another socket could take a port. So the
// ports are drawn from below the kernel's ephemeral range, which no outgoing connection and no
// listener on port 0 ever gets (on a busy machine one did, and the emulator died binding it), and
// each is held until all are found, so that none is handed out twice.
func FreeAddrs(n int) ([]string, error) {
	lo, hi := belowEphemeral()
	addrs := make([]string, 0, n)
	for tries := 0; len(addrs) < n; tries++ {
		port := 0 // the kernel's choice, where no range below the ephemeral one is known
		if hi > lo && tries < 100 {
			port = drawPort(lo, hi)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			if port != 0 {
				continue // taken: draw another
			}
			return nil, err
		}
		defer l.Close()
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

// drawPort is a port drawn at random from [lo, hi).
func drawPort(lo, hi int) int { return lo + rand.IntN(hi-lo) }

// portFloor is the lowest port FreeAddrs draws, above the well-known and most registered ones.
const portFloor = 10000

// belowEphemeral is the range of ports [lo, hi) that FreeAddrs draws from: from portFloor up to
// the start of the kernel's ephemeral range (net.ipv4.ip_local_port_range), or an empty range
// where that cannot be read or leaves fewer than 100 ports.
func belowEphemeral() (lo, hi int) {
	const floor = portFloor
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return 0, 0
	}
	start, err := strconv.Atoi(fields[0])
	if err != nil || start <= floor+100 {
		return 0, 0
	}
	return floor, start
}
