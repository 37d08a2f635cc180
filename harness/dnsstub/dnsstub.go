// Package dnsstub is a test's own DNS server. Experiments start Node.js programs that resolve
// names with dns.resolve4, which goes to a DNS server over UDP (c-ares), not to /etc/hosts; tests
// may talk to nothing but loopback, so the program is pointed with dns.setServers at this server,
// which gives every name the address the test chose.
//
// It parses the one question by hand: the standard library has no DNS server side, and the
// module takes no DNS dependency for a few dozen bytes of wire format.
package dnsstub

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// The parts of RFC 1035 the server needs.
const (
	headerLen = 12
	maxName   = 255 // octets of a name on the wire, the final zero included (RFC 1035 2.3.4)

	flagQR     = 0x8000
	opcodeMask = 0x7800 // the four opcode bits; 0 is a standard query
	flagRD     = 0x0100
	flagRA     = 0x0080

	rcodeSuccess = 0
	rcodeFormErr = 1
	rcodeNotImp  = 4

	typeA   = 1
	classIN = 1

	// pointerToQuestion names the question's name (at offset 12) from the answer, so the answer
	// does not spell the name out again.
	pointerToQuestion = 0xC00C
)

// Server answers DNS A queries on a loopback UDP port.
type Server struct {
	conn    *net.UDPConn
	answer  [4]byte
	queries atomic.Int64
	delay   atomic.Int64 // nanoseconds each reply waits; see SetDelay

	wg        sync.WaitGroup
	closing   atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// Start listens on 127.0.0.1:0 (UDP) and serves until Close. answer is the IPv4 address every A
// query for any name gets (e.g. net.IPv4(127,0,0,1)); a test that picks one other than
// 127.0.0.1, such as 127.0.0.9, can tell the server's answer from a real resolver's.
func Start(answer net.IP) (*Server, error) {
	ip4 := answer.To4()
	if ip4 == nil {
		// An A record holds four octets: anything else could only be answered wrongly.
		return nil, fmt.Errorf("dnsstub: answer %v is not an IPv4 address", answer)
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, fmt.Errorf("dnsstub: listen on loopback: %w", err)
	}
	s := &Server{conn: conn}
	copy(s.answer[:], ip4)
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// Addr is "127.0.0.1:PORT", the form dns.setServers takes.
func (s *Server) Addr() string { return s.conn.LocalAddr().String() }

// Queries counts the queries answered so far, so a test can tell that the program under test
// really asked this server rather than a cache or /etc/hosts. Every reply sent counts: A
// queries answered with the address, other types with an empty NOERROR, malformed queries
// with FORMERR and other opcodes with NOTIMP; packets dropped unanswered do not.
func (s *Server) Queries() int64 { return s.queries.Load() }

// SetDelay makes every later reply leave d after its query arrived, without holding up the
// queries behind it: a resolver d away on the network. Zero answers at once.
func (s *Server) SetDelay(d time.Duration) { s.delay.Store(int64(d)) }

// Close stops the server and waits for its goroutine to end, so a test that returns leaves
// nothing reading the port; safe to call twice (the second call returns nil).
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.closing.Store(true)
		s.closeErr = s.conn.Close()
		s.wg.Wait()
	})
	return s.closeErr
}

// serve answers one packet at a time: the experiments send a handful of queries, and one
// reader keeps replies in the order the queries came.
func (s *Server) serve() {
	defer s.wg.Done()
	buf := make([]byte, 65535) // the largest UDP payload, so an EDNS query is never cut short
	for {
		n, from, err := s.conn.ReadFromUDP(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) || s.closing.Load() {
				return
			}
			// Anything else is about one packet; pause so an error that repeats cannot spin.
			time.Sleep(time.Millisecond)
			continue
		}
		resp := reply(buf[:n], s.answer)
		if resp == nil {
			continue
		}
		if d := time.Duration(s.delay.Load()); d > 0 {
			time.AfterFunc(d, func() { s.send(resp, from) })
			continue
		}
		s.send(resp, from)
	}
}

// send writes one reply. A client that has gone away, or a reply due after Close, is not a reason
// to stop serving.
func (s *Server) send(resp []byte, to *net.UDPAddr) {
	// Counted before the write, so that a client holding the reply always finds it counted.
	s.queries.Add(1)
	if _, err := s.conn.WriteToUDP(resp, to); err != nil {
		s.queries.Add(-1)
	}
}

// question is a query's one question.
type question struct {
	labels []string // the name, root label left out: "svc.test." is ["svc", "test"]
	qtype  uint16
	qclass uint16
}

// errMalformed wraps every reason a question cannot be read, so callers can tell a bad packet
// from anything else.
var errMalformed = errors.New("malformed question")

// parseQuestion reads the question that starts at off in msg and returns it with the offset
// just past it. Queries never need compression in their one question, so a pointer there is
// refused rather than followed: following one is how a crafted packet sends a parser in circles.
func parseQuestion(msg []byte, off int) (question, int, error) {
	var q question
	wire := 0
	for {
		if off >= len(msg) {
			return q, 0, fmt.Errorf("%w: name runs past the end of the packet", errMalformed)
		}
		l := int(msg[off])
		switch l & 0xC0 {
		case 0xC0:
			return q, 0, fmt.Errorf("%w: compression pointer in the question at offset %d", errMalformed, off)
		case 0x40, 0x80:
			return q, 0, fmt.Errorf("%w: label length byte %#x at offset %d is no label", errMalformed, l, off)
		}
		off++
		wire += 1 + l
		if wire > maxName {
			return q, 0, fmt.Errorf("%w: name longer than %d octets", errMalformed, maxName)
		}
		if l == 0 {
			break
		}
		if off+l > len(msg) {
			return q, 0, fmt.Errorf("%w: label of %d octets runs past the end of the packet", errMalformed, l)
		}
		q.labels = append(q.labels, string(msg[off:off+l]))
		off += l
	}
	if off+4 > len(msg) {
		return q, 0, fmt.Errorf("%w: no room for QTYPE and QCLASS after the name", errMalformed)
	}
	q.qtype = binary.BigEndian.Uint16(msg[off:])
	q.qclass = binary.BigEndian.Uint16(msg[off+2:])
	return q, off + 4, nil
}

// reply is the server's whole policy: the packet to send back for msg, or nil to send nothing.
// It reads only what it has checked is there, so no packet can make it panic.
func reply(msg []byte, answer [4]byte) []byte {
	if len(msg) < 2 {
		return nil // not even an ID: a reply could not be matched to anything
	}
	id := binary.BigEndian.Uint16(msg)
	if len(msg) < headerLen {
		return header(id, flagQR|flagRA|rcodeFormErr, 0, 0)
	}
	flags := binary.BigEndian.Uint16(msg[2:])
	if flags&flagQR != 0 {
		// A response, not a query: answering it could start two servers replying to each other.
		return nil
	}
	echoed := flagQR | flags&(opcodeMask|flagRD) | flagRA
	if flags&opcodeMask != 0 {
		// NOTIFY, UPDATE and the rest are not ours to serve; NOTIMP tells the sender so at once.
		return header(id, echoed|rcodeNotImp, 0, 0)
	}
	if qdcount := binary.BigEndian.Uint16(msg[4:]); qdcount != 1 {
		return header(id, echoed|rcodeFormErr, 0, 0)
	}
	// Answer, authority and additional records in a query (EDNS puts an OPT record in the
	// additional section) are ignored: the answer depends on the question alone.
	q, end, err := parseQuestion(msg, headerLen)
	if err != nil {
		return header(id, echoed|rcodeFormErr, 0, 0)
	}
	asked := msg[headerLen:end] // echoed byte for byte, so the resolver finds its own name's case
	if q.qtype != typeA || q.qclass != classIN {
		// NOERROR with no records says "the name exists, without this type": a resolver asking
		// AAAA beside A takes that as final, where an error would make it retry or fail.
		return append(header(id, echoed|rcodeSuccess, 1, 0), asked...)
	}
	resp := append(header(id, echoed|rcodeSuccess, 1, 1), asked...)
	resp = binary.BigEndian.AppendUint16(resp, pointerToQuestion)
	resp = binary.BigEndian.AppendUint16(resp, typeA)
	resp = binary.BigEndian.AppendUint16(resp, classIN)
	resp = binary.BigEndian.AppendUint32(resp, 0) // TTL 0: no caller caches an answer made up for a test
	resp = binary.BigEndian.AppendUint16(resp, uint16(len(answer)))
	return append(resp, answer[:]...)
}

// header is a reply header with no authority or additional records.
func header(id, flags, qdcount, ancount uint16) []byte {
	h := make([]byte, headerLen, headerLen+maxName+4+16)
	binary.BigEndian.PutUint16(h[0:], id)
	binary.BigEndian.PutUint16(h[2:], flags)
	binary.BigEndian.PutUint16(h[4:], qdcount)
	binary.BigEndian.PutUint16(h[6:], ancount)
	return h
}
