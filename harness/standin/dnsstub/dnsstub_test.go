package dnsstub

import (
	"context"
	"encoding/binary"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/dns/dnsmessage"
)

// served is the address the tests configure: not 127.0.0.1, so an answer carrying it can only
// have come from this server.
var served = net.IPv4(127, 0, 0, 9)

// The parts of RFC 1035 the tests write and read by hand, so that what they check does not go
// through the dnsmessage package the server is built on.
const (
	headerLen = 12
	flagQR    = 0x8000

	rcodeFormErr = 1
	rcodeNotImp  = 4

	typeA    = 1
	typeAAAA = 28
	classIN  = 1
)

func start(t *testing.T) *Server {
	t.Helper()
	srv, err := Start(served)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// query builds a standard query with RD set and one question for name (dotted, root optional).
func query(id uint16, name string, qtype, qclass uint16) []byte {
	msg := []byte{byte(id >> 8), byte(id), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0}
	for _, label := range strings.Split(strings.TrimSuffix(name, "."), ".") {
		if label != "" {
			msg = append(msg, byte(len(label)))
			msg = append(msg, label...)
		}
	}
	msg = append(msg, 0)
	msg = binary.BigEndian.AppendUint16(msg, qtype)
	return binary.BigEndian.AppendUint16(msg, qclass)
}

// dial opens a UDP socket connected to the server, so reads see only the server's replies.
func dial(t *testing.T, srv *Server) *net.UDPConn {
	t.Helper()
	raddr, err := net.ResolveUDPAddr("udp4", srv.Addr())
	require.NoError(t, err)
	conn, err := net.DialUDP("udp4", nil, raddr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func send(t *testing.T, conn *net.UDPConn, msg []byte) {
	t.Helper()
	_, err := conn.Write(msg)
	require.NoError(t, err)
}

func receive(t *testing.T, conn *net.UDPConn) []byte {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	buf := make([]byte, 65535)
	n, err := conn.Read(buf)
	require.NoError(t, err, "no reply from the server")
	return buf[:n]
}

// parsed is a reply's header and what follows it.
type parsed struct {
	id, flags, qd, an, ns, ar uint16
	body                      []byte
}

func parse(t *testing.T, msg []byte) parsed {
	t.Helper()
	require.GreaterOrEqual(t, len(msg), headerLen, "reply length = %d; want at least a header", len(msg))
	be := binary.BigEndian
	return parsed{be.Uint16(msg), be.Uint16(msg[2:]), be.Uint16(msg[4:]), be.Uint16(msg[6:]),
		be.Uint16(msg[8:]), be.Uint16(msg[10:]), msg[headerLen:]}
}

func (p parsed) rcode() uint16 { return p.flags & 0x000F }

// assertAnswered checks the server's full reply to query(id, name, A, IN).
func assertAnswered(t *testing.T, reply []byte, id uint16, name string) {
	t.Helper()
	want := append(query(id, name, typeA, classIN), 0xC0, 0x0C, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, 127, 0, 0, 9)
	want[2], want[3] = 0x81, 0x80 // QR, RD (copied), RA, NOERROR
	want[7] = 1                   // ANCOUNT
	assert.Equal(t, want, reply, "reply = % x; want % x", reply, want)
}

func TestGoResolverGetsTheConfiguredAddress(t *testing.T) {
	srv := start(t)
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", srv.Addr())
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	before := srv.Queries()

	ips, err := r.LookupIP(ctx, "ip4", "anything.example.")
	require.NoError(t, err)

	require.Len(t, ips, 1, "addresses = %v; want [%v]", ips, served)
	assert.True(t, ips[0].Equal(served), "address = %v; want %v", ips[0], served)
	assert.Greater(t, srv.Queries(), before, "Queries() = %d; want more than %d", srv.Queries(), before)
}

func TestAnswersAQueryByHand(t *testing.T) {
	srv := start(t)
	conn := dial(t, srv)

	send(t, conn, query(0xBEEF, "Svc.Test.", typeA, classIN))

	assertAnswered(t, receive(t, conn), 0xBEEF, "Svc.Test.")
	assert.Equal(t, int64(1), srv.Queries(), "Queries() = %d; want 1", srv.Queries())
}

func TestOtherTypesGetAnEmptyNoError(t *testing.T) {
	for _, tc := range []struct {
		name          string
		qtype, qclass uint16
	}{
		{"AAAA", typeAAAA, classIN},
		{"MX", 15, classIN},
		{"A in class CH", typeA, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := start(t)
			conn := dial(t, srv)
			q := query(7, "svc.test.", tc.qtype, tc.qclass)

			send(t, conn, q)
			r := parse(t, receive(t, conn))

			assert.Equal(t, uint16(7), r.id, "id = %d; want 7", r.id)
			assert.Equal(t, uint16(0x8180), r.flags, "flags = %#04x; want 0x8180 (QR RD RA NOERROR)", r.flags)
			assert.Equal(t, uint16(1), r.qd, "QDCOUNT = %d; want 1", r.qd)
			assert.Equal(t, uint16(0), r.an, "ANCOUNT = %d; want 0", r.an)
			assert.Equal(t, q[headerLen:], r.body, "question = % x; want % x", r.body, q[headerLen:])
		})
	}
}

func TestMalformedPacketsGetFormErrOrNothingAndTheServerGoesOn(t *testing.T) {
	good := query(0x0101, "svc.test.", typeA, classIN)
	withQD := func(n uint16) []byte {
		m := query(0x4242, "svc.test.", typeA, classIN)
		binary.BigEndian.PutUint16(m[4:], n)
		return m
	}
	header := func(rest ...byte) []byte {
		return append([]byte{0x42, 0x42, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0}, rest...)
	}
	long := header()
	for range 5 { // 5 labels of 63 octets: 320 octets on the wire, over the 255 allowed
		long = append(long, 63)
		long = append(long, strings.Repeat("a", 63)...)
	}
	long = append(long, 0, 0, 1, 0, 1)
	response := query(0x4242, "svc.test.", typeA, classIN)
	response[2] |= 0x80

	for _, tc := range []struct {
		name    string
		msg     []byte
		formErr bool // else no reply at all
	}{
		{"empty", []byte{}, false},
		{"one byte", []byte{0x42}, false},
		{"a response, not a query", response, false},
		{"header cut short", []byte{0x42, 0x42, 0x01, 0x00, 0, 1}, true},
		{"no question", withQD(0), true},
		{"two questions", withQD(2), true},
		{"header only", header(), true},
		{"label past the end", header(10, 's', 'v', 'c'), true},
		{"label length 64", append(header(64), strings.Repeat("a", 64)+"\x00\x00\x01\x00\x01"...), true},
		{"label type 0x80", header(0x80, 0, 0, 1, 0, 1), true},
		{"compression pointer", header(3, 's', 'v', 'c', 0xC0, 0x0C, 0, 1, 0, 1), true},
		{"no QTYPE and QCLASS", header(3, 's', 'v', 'c', 0, 0, 1), true},
		{"name over 255 octets", long, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := start(t)
			conn := dial(t, srv)

			// The good query goes right behind the bad packet: one goroutine answers in order,
			// so any reply to the bad packet would be read first, and the good one's answer
			// shows the server survived it.
			send(t, conn, tc.msg)
			send(t, conn, good)

			first := receive(t, conn)
			if tc.formErr {
				r := parse(t, first)
				assert.Equal(t, uint16(0x4242), r.id, "id = %#04x; want 0x4242", r.id)
				assert.Equal(t, uint16(rcodeFormErr), r.rcode(), "rcode = %d; want %d (FORMERR)", r.rcode(), rcodeFormErr)
				assert.NotZero(t, r.flags&flagQR, "QR = 0; want 1")
				assert.Equal(t, uint16(0), r.an, "ANCOUNT = %d; want 0", r.an)
				first = receive(t, conn)
			}
			assertAnswered(t, first, 0x0101, "svc.test.")
		})
	}
}

func TestOtherOpcodesGetNotImp(t *testing.T) {
	srv := start(t)
	conn := dial(t, srv)
	status := query(0x4242, "svc.test.", typeA, classIN)
	status[2] |= 2 << 3 // opcode 2, STATUS

	send(t, conn, status)
	r := parse(t, receive(t, conn))

	assert.Equal(t, uint16(0x4242), r.id, "id = %#04x; want 0x4242", r.id)
	assert.Equal(t, uint16(rcodeNotImp), r.rcode(), "rcode = %d; want %d (NOTIMP)", r.rcode(), rcodeNotImp)
	assert.Equal(t, uint16(2), r.flags>>11&0xF, "opcode = %d; want 2 (echoed)", r.flags>>11&0xF)
}

func TestParseQuestionReadsLabels(t *testing.T) {
	msg := query(1, "svc.test.", typeAAAA, classIN)
	var p dnsmessage.Parser
	_, err := p.Start(msg)
	require.NoError(t, err)

	q, err := parseQuestion(&p)
	require.NoError(t, err)

	assert.Equal(t, "svc.test.", q.Name.String(), "name = %s; want svc.test.", q.Name)
	assert.Equal(t, dnsmessage.TypeAAAA, q.Type, "qtype = %v; want %v", q.Type, dnsmessage.TypeAAAA)
	assert.Equal(t, dnsmessage.ClassINET, q.Class, "qclass = %v; want %v", q.Class, dnsmessage.ClassINET)
}

func TestParseQuestionRefusesAnythingButOneQuestion(t *testing.T) {
	for _, qd := range []uint16{0, 2} {
		msg := query(1, "svc.test.", typeA, classIN)
		binary.BigEndian.PutUint16(msg[4:], qd)
		var p dnsmessage.Parser
		_, err := p.Start(msg)
		require.NoError(t, err)

		_, err = parseQuestion(&p)
		assert.ErrorIs(t, err, errMalformed, "QDCOUNT = %d: error = %v; want errMalformed", qd, err)
	}
}

// FuzzReply holds reply to its promise that no packet makes it panic; plain `go test` runs the
// seeds, `go test -fuzz=FuzzReply` looks further.
func FuzzReply(f *testing.F) {
	for _, seed := range [][]byte{
		nil, {0x42}, {0x42, 0x42},
		query(1, "svc.test.", typeA, classIN),
		query(2, "svc.test.", typeAAAA, classIN),
		query(3, ".", typeA, classIN),
		{0, 3, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 0x0C},
		{0, 4, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 63, 'a'},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		r := reply(msg, [4]byte{127, 0, 0, 9})
		if r == nil {
			return
		}
		require.GreaterOrEqual(t, len(r), headerLen, "reply length = %d; want at least a header", len(r))
		assert.Equal(t, msg[:2], r[:2], "id = % x; want % x", r[:2], msg[:2])
		assert.NotZero(t, r[2]&0x80, "QR = 0; want 1")
	})
}

func TestNodeResolve4GetsTheConfiguredAddress(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node (Node.js) is not on PATH: ", err)
	}
	srv := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const script = `
const dns = require('node:dns');
dns.setServers([process.argv[1]]);
dns.promises.resolve4('svc.test').then(
  (addrs) => console.log(JSON.stringify(addrs)),
  (err) => { console.error(err); process.exit(1); });
`

	out, err := exec.CommandContext(ctx, node, "-e", script, srv.Addr()).CombinedOutput()
	require.NoError(t, err, "node: %s", out)

	got := strings.TrimSpace(string(out))
	assert.Equal(t, `["127.0.0.9"]`, got, "node printed %s; want [\"127.0.0.9\"]", got)
	assert.Positive(t, srv.Queries(), "Queries() = %d; want at least 1", srv.Queries())
}

func TestCloseTwiceIsFine(t *testing.T) {
	srv, err := Start(served)
	require.NoError(t, err)

	assert.NoError(t, srv.Close(), "first Close")
	assert.NoError(t, srv.Close(), "second Close")
}

func TestStartRefusesAnIPv6Answer(t *testing.T) {
	srv, err := Start(net.ParseIP("::1"))
	if srv != nil {
		_ = srv.Close()
	}

	assert.Error(t, err, "Start(::1) error = nil; want an error (A records hold IPv4)")
}

func TestSetDelayHoldsEachReplyWithoutQueueingThem(t *testing.T) {
	srv := start(t)
	const delay = 150 * time.Millisecond
	srv.SetDelay(delay)
	conn := dial(t, srv)

	sent := time.Now()
	send(t, conn, query(1, "a.test.", typeA, classIN))
	send(t, conn, query(2, "b.test.", typeA, classIN))
	receive(t, conn)
	first := time.Since(sent)
	receive(t, conn)
	second := time.Since(sent)

	assert.GreaterOrEqual(t, first, delay, "first reply after %v; want no sooner than the delay %v", first, delay)
	// Replies held one after the other would come a whole delay apart.
	assert.Less(t, second-first, delay/2, "second reply %v after the first; want them held side by side, not queued", second-first)
}
