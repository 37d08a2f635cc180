package loopback

import (
	"errors"
	"net"
	"strconv"
	"syscall"
)

// Reservation is a loopback address held for a server that goes down and comes back on it (a
// stand-in's outage). FreeAddrs leaves the port free while the server is down, and on a busy
// machine another test process bound it then (bind: address already in use). Where the platform
// can (Linux), a Reservation holds the port with a socket bound to it that never listens: no
// other socket can bind the port, a connection to it is refused as to a closed port, and Listen
// opens the server's listener beside that socket, as often as the server comes back.
type Reservation struct {
	addr string
	// hold is the socket that holds the port; nil where the platform cannot hold one, and then
	// Listen can find the port taken, as with FreeAddrs.
	hold *holder
}

// Reserve draws a loopback address as FreeAddrs does and holds its port until Close.
func Reserve() (*Reservation, error) {
	lo, hi := belowEphemeral()
	if !canHold || hi <= lo {
		addrs, err := FreeAddrs(1)
		if err != nil {
			return nil, err
		}
		return &Reservation{addr: addrs[0]}, nil
	}
	for range 100 {
		port := drawPort(lo, hi)
		h, err := holdPort(port)
		if errors.Is(err, syscall.EADDRINUSE) {
			continue // taken: draw another
		}
		if err != nil {
			return nil, err
		}
		return &Reservation{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), hold: h}, nil
	}
	return nil, errors.New("loopback: no free port below the ephemeral range in 100 draws")
}

// Addr is the reserved address, host:port.
func (r *Reservation) Addr() string { return r.addr }

// Listen opens a TCP listener on the reserved address. The server closes it to go down; the
// port stays held.
func (r *Reservation) Listen() (net.Listener, error) {
	if r.hold == nil {
		return net.Listen("tcp", r.addr)
	}
	return listenBeside(r.addr)
}

// Close lets the port go. A listener opened by Listen is the caller's to close.
func (r *Reservation) Close() error {
	if r.hold == nil {
		return nil
	}
	return r.hold.Close()
}
