package loopback

import (
	"context"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// canHold says this platform can hold a port (Reservation).
const canHold = true

// holder is a TCP socket bound to a loopback port that never listens.
type holder struct{ fd int }

// holdPort binds a socket to 127.0.0.1:port. It binds without SO_REUSEPORT, so that the bind
// fails wherever any socket has the port, and sets the option after: Linux checks each bound
// socket's option when another socket binds, so listenBeside's socket, which sets it too (from
// the same user), binds beside this one, and a socket without it, any other process's, never does.
func holdPort(port int) (*holder, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	return &holder{fd: fd}, nil
}

func (h *holder) Close() error { return unix.Close(h.fd) }

// listenBeside listens on addr with SO_REUSEPORT, beside the socket that holds its port.
func listenBeside(addr string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var opErr error
		if err := c.Control(func(fd uintptr) {
			opErr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
		}); err != nil {
			return err
		}
		return opErr
	}}
	return lc.Listen(context.Background(), "tcp", addr)
}
