//go:build !linux

package loopback

import (
	"errors"
	"net"
)

// canHold says this platform can hold a port (Reservation): not here, where the semantics of
// SO_REUSEPORT are not Linux's.
const canHold = false

// holder is never made here.
type holder struct{}

func holdPort(int) (*holder, error) { return nil, errors.ErrUnsupported }

func (h *holder) Close() error { return nil }

func listenBeside(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
