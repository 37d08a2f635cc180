// Package dnsstub is a test's own DNS server. Experiments start Node.js programs that resolve
// names with dns.resolve4, which goes to a DNS server over UDP (c-ares), not to /etc/hosts; tests
// may talk to nothing but loopback, so the program is pointed with dns.setServers at this server,
// which gives every name the address the test chose.
//
// The wire format is golang.org/x/net/dns/dnsmessage's: the standard library has no DNS server
// side, and dnsmessage checks every length and bounds the compression pointers it follows, so a
// crafted packet gets FORMERR, never a panic or a parser sent in circles.
package dnsstub

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/dns/dnsmessage"
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

// errMalformed wraps every reason a query's question cannot be read, so callers can tell a bad
// packet from anything else.
var errMalformed = errors.New("malformed question")

// parseQuestion reads the one question of the query p has started on. A query that has none, or
// more than one, is malformed: a reply answers exactly one question.
func parseQuestion(p *dnsmessage.Parser) (dnsmessage.Question, error) {
	q, err := p.Question()
	if errors.Is(err, dnsmessage.ErrSectionDone) {
		return q, fmt.Errorf("%w: no question", errMalformed)
	}
	if err != nil {
		return q, fmt.Errorf("%w: %v", errMalformed, err)
	}
	if _, err := p.Question(); !errors.Is(err, dnsmessage.ErrSectionDone) {
		return q, fmt.Errorf("%w: more than one question", errMalformed)
	}
	return q, nil
}

// reply is the server's whole policy: the packet to send back for msg, or nil to send nothing.
// Nothing is read that dnsmessage has not checked is there, so no packet can make it panic.
func reply(msg []byte, answer [4]byte) []byte {
	if len(msg) < 2 {
		return nil // not even an ID: a reply could not be matched to anything
	}
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		// A header cut short: its ID is all that can be echoed.
		return pack(dnsmessage.Header{ID: binary.BigEndian.Uint16(msg), Response: true, RecursionAvailable: true,
			RCode: dnsmessage.RCodeFormatError}, nil, nil)
	}
	if h.Response {
		// A response, not a query: answering it could start two servers replying to each other.
		return nil
	}
	resp := dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	if h.OpCode != 0 {
		// NOTIFY, UPDATE and the rest are not ours to serve; NOTIMP tells the sender so at once.
		resp.RCode = dnsmessage.RCodeNotImplemented
		return pack(resp, nil, nil)
	}
	// Answer, authority and additional records in a query (EDNS puts an OPT record in the
	// additional section) are ignored: the answer depends on the question alone.
	q, err := parseQuestion(&p)
	if err != nil {
		resp.RCode = dnsmessage.RCodeFormatError
		return pack(resp, nil, nil)
	}
	if q.Type != dnsmessage.TypeA || q.Class != dnsmessage.ClassINET {
		// NOERROR with no records says "the name exists, without this type": a resolver asking
		// AAAA beside A takes that as final, where an error would make it retry or fail.
		return pack(resp, &q, nil)
	}
	return pack(resp, &q, &dnsmessage.AResource{A: answer})
}

// pack writes a reply: h, the question when there is one, and the A record a for its name when a
// is not nil. The question is echoed as the resolver spelled it, so that it finds its own name's
// case, and the answer's name is a pointer to it. A question that cannot be written back, which
// dnsmessage's own parsing rules out, gets FORMERR rather than silence.
func pack(h dnsmessage.Header, q *dnsmessage.Question, a *dnsmessage.AResource) []byte {
	msg, err := build(h, q, a)
	if err != nil {
		h.RCode = dnsmessage.RCodeFormatError
		msg, _ = build(h, nil, nil) // a header alone always packs
	}
	return msg
}

// build is pack's message, or the first error writing it.
func build(h dnsmessage.Header, q *dnsmessage.Question, a *dnsmessage.AResource) ([]byte, error) {
	b := dnsmessage.NewBuilder(make([]byte, 0, 512), h)
	b.EnableCompression()
	if q == nil {
		return b.Finish()
	}
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(*q); err != nil {
		return nil, err
	}
	if a != nil {
		if err := b.StartAnswers(); err != nil {
			return nil, err
		}
		// TTL 0: no caller caches an answer made up for a test.
		rh := dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 0}
		if err := b.AResource(rh, *a); err != nil {
			return nil, err
		}
	}
	return b.Finish()
}
