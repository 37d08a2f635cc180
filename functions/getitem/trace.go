package main

import (
	"context"
	"crypto/tls"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/serverless-claims/claims/results/family/getitem"
)

// Phases is what one SDK call cost on the wire, as net/http saw it on the SDK's own connection
// (claim T6): the article timed DNS, TCP and TLS by hand on a connection of its own, beside the
// SDK's; these come from httptrace hooks on the very request the SDK sends.
//
// When the SDK retries, the phases are those of the last attempt (the one whose answer the call
// returned, or whose failure it reported) and Attempts counts them all. A phase that did not
// happen is 0: no DNS for an IP literal, no connect or TLS on a reused connection.
type Phases struct {
	// Call is what results keep of the call (results/family/getitem): each phase's time and CPU,
	// reused and pooled, the total, the attempts, the curve, and the error the handler sets.
	getitem.Call
	// Connection is what the connection negotiated and where it went, which results leave out.
	getitem.Connection
}

// tracer collects the phases of one SDK call. net/http calls the hooks from more than one
// goroutine (the dial runs apart from the request), and a dial can even finish after the call
// returned, so everything is under mu and read through phases.
type tracer struct {
	mu    sync.Mutex
	start time.Time // the call's start, for TotalMs
	end   time.Time // set by finish

	attempts  int
	getConn   time.Time
	dnsStart  time.Time
	dnsCPU    time.Duration // processCPU at dnsStart
	connStart time.Time
	connCPU   time.Duration // processCPU at connStart
	tlsStart  time.Time
	tlsCPU    time.Duration // processCPU at tlsStart
	p         Phases
}

// withTrace starts timing a call and returns ctx carrying the hooks. Pass the returned context
// to the SDK: it builds its http.Request with that context, so the hooks see the SDK's own
// connection. httptrace composes with any trace already in ctx (smithy's metrics add one), so
// neither hides the other.
func withTrace(ctx context.Context) (context.Context, *tracer) {
	tr := &tracer{start: time.Now()}
	return attach(ctx, tr.hooks()), tr
}

// finish marks the call's end; call it as soon as the SDK returns.
func (tr *tracer) finish() {
	now := time.Now()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.end = now
}

// phases is a copy of what was seen, with TotalMs from withTrace to finish.
func (tr *tracer) phases() Phases {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	p := tr.p
	p.Attempts = tr.attempts
	if !tr.end.IsZero() {
		p.TotalMs = ms(tr.end.Sub(tr.start))
	}
	return p
}

func (tr *tracer) hooks() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GetConn: func(string) {
			now := time.Now()
			tr.mu.Lock()
			defer tr.mu.Unlock()
			// A new attempt: forget the last one's phases, so they describe one request.
			tr.attempts++
			tr.getConn = now
			tr.dnsStart, tr.connStart, tr.tlsStart = time.Time{}, time.Time{}, time.Time{}
			tr.p = Phases{}
		},
		GotConn: func(info httptrace.GotConnInfo) {
			tr.mu.Lock()
			defer tr.mu.Unlock()
			tr.p.Reused = info.Reused
			if info.Conn != nil {
				tr.p.RemoteAddr = info.Conn.RemoteAddr().String()
			}
			// A reused connection has no handshake to report, but its TLS state is still the
			// one that was negotiated; read it from the connection itself.
			if tc, ok := info.Conn.(*tls.Conn); ok {
				tr.setTLS(tc.ConnectionState())
			}
		},
		DNSStart: func(httptrace.DNSStartInfo) {
			now, cpu := time.Now(), processCPU()
			tr.mu.Lock()
			defer tr.mu.Unlock()
			tr.dnsStart, tr.dnsCPU = now, cpu
		},
		DNSDone: func(httptrace.DNSDoneInfo) {
			now, cpu := time.Now(), processCPU()
			tr.mu.Lock()
			defer tr.mu.Unlock()
			if !tr.dnsStart.IsZero() {
				tr.p.DNSMs = ms(now.Sub(tr.dnsStart))
				tr.p.DNSCPUMs = ms(cpu - tr.dnsCPU)
			}
		},
		ConnectStart: func(string, string) {
			now, cpu := time.Now(), processCPU()
			tr.mu.Lock()
			defer tr.mu.Unlock()
			if tr.connStart.IsZero() {
				tr.connStart, tr.connCPU = now, cpu
			}
		},
		ConnectDone: func(_, _ string, err error) {
			now, cpu := time.Now(), processCPU()
			tr.mu.Lock()
			defer tr.mu.Unlock()
			if err == nil && !tr.connStart.IsZero() && tr.p.ConnectMs == 0 {
				tr.p.ConnectMs = ms(now.Sub(tr.connStart))
				tr.p.ConnectCPUMs = ms(cpu - tr.connCPU)
			}
		},
		TLSHandshakeStart: func() {
			now, cpu := time.Now(), processCPU()
			tr.mu.Lock()
			defer tr.mu.Unlock()
			tr.tlsStart, tr.tlsCPU = now, cpu
		},
		TLSHandshakeDone: func(cs tls.ConnectionState, err error) {
			now, cpu := time.Now(), processCPU()
			tr.mu.Lock()
			defer tr.mu.Unlock()
			if !tr.tlsStart.IsZero() {
				tr.p.TLSMs = ms(now.Sub(tr.tlsStart))
				tr.p.TLSCPUMs = ms(cpu - tr.tlsCPU)
			}
			if err == nil {
				tr.setTLS(cs)
			}
		},
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			tr.mu.Lock()
			defer tr.mu.Unlock()
			if info.Err != nil {
				tr.p.WriteError = info.Err.Error()
			}
		},
		PutIdleConn: func(err error) {
			tr.mu.Lock()
			defer tr.mu.Unlock()
			tr.p.Pooled = err == nil
		},
		GotFirstResponseByte: func() {
			now := time.Now()
			tr.mu.Lock()
			defer tr.mu.Unlock()
			if !tr.getConn.IsZero() {
				tr.p.TTFBMs = ms(now.Sub(tr.getConn))
			}
		},
	}
}

// setTLS records a negotiated state; mu must be held.
func (tr *tracer) setTLS(cs tls.ConnectionState) {
	if !cs.HandshakeComplete {
		return
	}
	tr.p.TLSVersion = tls.VersionName(cs.Version)
	tr.p.CipherSuite = tls.CipherSuiteName(cs.CipherSuite)
	if cs.CurveID != 0 {
		tr.p.Curve = cs.CurveID.String()
	}
	tr.p.DidResume = cs.DidResume
}

// ms is d in milliseconds, with the fraction: a loopback handshake takes well under one.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
