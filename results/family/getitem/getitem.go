// Package getitem is functions/getitem's answer to an invocation, as the function sends it and
// the cold-start results keep it (results/family's coldstart.phases, .ownConnection and
// .warmupFailure): the function answers with these types and the experiments and the report
// read them, so the answer is declared once. It imports nothing, to keep the function's binary
// (whose Init the claims time) what it was.
package getitem

// Call is functions/getitem's account of one SDK call, on the SDK's own connection, as a result
// keeps it: the function answers with it (and with Connection beside it, which results leave
// out). A phase that did not happen is 0: no DNS for an IP literal, no connect or TLS on a
// reused connection. When the SDK retries, the phases are the last attempt's.
type Call struct {
	// DNSMs is DNSStart to DNSDone.
	DNSMs float64 `json:"dnsMs"`
	// DNSCPUMs is the CPU time the process was charged over the same span.
	DNSCPUMs float64 `json:"dnsCpuMs"`
	// ConnectMs is the first ConnectStart to the ConnectDone that succeeded (the dialer may
	// race addresses; the time to a usable socket is what the request waited).
	ConnectMs float64 `json:"connectMs"`
	// ConnectCPUMs is the CPU time the process was charged over the same span.
	ConnectCPUMs float64 `json:"connectCpuMs"`
	// TLSMs is TLSHandshakeStart to TLSHandshakeDone.
	TLSMs float64 `json:"tlsMs"`
	// TLSCPUMs is the CPU time the process was charged over the same span: the handshake's
	// cost, whatever throttling stretched it to.
	TLSCPUMs float64 `json:"tlsCpuMs"`
	// TTFBMs is the request's start (GetConn: net/http asked for a connection) to the first
	// byte of the response: the wait for a connection, its setup if new, writing the request,
	// and the server's time to answer.
	TTFBMs float64 `json:"ttfbMs"`
	// Reused is GotConnInfo.Reused: the request went out on a pooled connection.
	Reused bool `json:"reused"`
	// Pooled says net/http put the connection back in its idle pool when the response was
	// read (PutIdleConn with no error): the next call can reuse it. When it is false after a
	// call that succeeded, Connection's WriteError usually says why.
	Pooled bool `json:"pooled"`
	// TotalMs is the whole SDK call, as its caller saw it: serialising, signing, retries and
	// all.
	TotalMs float64 `json:"totalMs"`
	// Attempts counts the HTTP requests the call made (GetConn hooks).
	Attempts int `json:"attempts" jsonschema:"minimum=0"`
	// Curve is the key exchange the connection negotiated.
	Curve string `json:"curve,omitempty"`
	// Error is the call's error, if it failed.
	Error string `json:"error,omitempty"`
}

// SetupMs is the call's network set-up: DNS, TCP and TLS.
func (c Call) SetupMs() float64 { return c.DNSMs + c.ConnectMs + c.TLSMs }

// SetupCPUMs is the CPU the process was charged over the same phases.
func (c Call) SetupCPUMs() float64 { return c.DNSCPUMs + c.ConnectCPUMs + c.TLSCPUMs }

// Connection is what functions/getitem also answers about a call's connection, for a reader of
// the function's answer; results do not keep it.
type Connection struct {
	// TLSVersion and CipherSuite are what the connection negotiated, and DidResume says the
	// handshake resumed a session: what a handshake's cost depends on (claim T7).
	TLSVersion  string `json:"tlsVersion,omitempty"`
	CipherSuite string `json:"cipherSuite,omitempty"`
	DidResume   bool   `json:"didResume"`
	// RemoteAddr is the server's address as connected.
	RemoteAddr string `json:"remoteAddr,omitempty"`
	// WriteError is the error net/http reported for writing the request, if any. A request can
	// fail to write and still get its answer: smithy-go closes the request body as soon as the
	// response is in, and net/http's last read of it (its check for bytes past Content-Length),
	// if it comes later, fails with EOF. The call succeeds, but net/http then closes the
	// connection instead of pooling it.
	WriteError string `json:"writeError,omitempty"`
}

// Answer is functions/getitem's answer to one invocation, as a result keeps it: the GetItem's
// call at the top level, the warm variant's warm-up under Warmup.
type Answer struct {
	Call
	// Found says GetItem returned an item.
	Found bool `json:"found"`
	// Variant is CLAIMS_VARIANT: cold, warm, or (the Rust function only) article.
	Variant string `json:"variant"`
	// Invocation counts the process's invocations, from 1: 1 is the cold start's.
	Invocation int `json:"invocation" jsonschema:"minimum=0"`
	// InitMs, InitFrom and InitGoMs are the function's own measure of its Init.
	InitMs   float64 `json:"initMs"`
	InitFrom string  `json:"initFrom"`
	InitGoMs float64 `json:"initGoMs"`
	// Warmup is the warm variant's warm-up; absent for cold.
	Warmup *Call `json:"warmup,omitempty"`
	// Pid is the process's id: two answers with the same pid came from one environment.
	Pid int `json:"pid" jsonschema:"minimum=0"`
	// HandlerMs is the function's own measure of the invocation, from the handler's entry to
	// its answer: what Lambda's Duration covers.
	HandlerMs float64 `json:"handlerMs"`
	// HandlerCPUMs is the CPU the function's process was charged over its handler.
	HandlerCPUMs float64 `json:"handlerCpuMs"`
	// Stack names what the function is made of; absent from answers of the Go function before
	// it named it.
	Stack *Stack `json:"stack,omitempty"`
	// Roots is when and at what cost the function loaded the certificate authorities it
	// trusts, where it loads them apart from the handshake and can time it; absent where the
	// roots are loaded inside the first handshake (Go's crypto/x509), whose TLS phase then
	// holds their cost.
	Roots *Roots `json:"roots,omitempty"`
	// Article is the article variant's first invocation beyond its GetItem; absent elsewhere.
	Article *ArticleParts `json:"article,omitempty"`
}

// ArticleParts is what the Rust function's article variant measures in its first invocation
// besides the GetItem (whose phases, on the SDK's own connection, are the answer's): a
// connection of its own timed by hand before the GetItem, as the article's function timed one,
// with a ClientConfig and roots built in Init; a second such connection after the GetItem, with
// a ClientConfig of its own (no session to resume); the crypto library's first and second use,
// in a child forked just before the first connection; the roots loaded again; and, before all
// of them, the code's first page-in from a cold page cache.
type ArticleParts struct {
	// PageIn is the code's first page-in, from two fresh processes of the function's binary;
	// PageInError says why it is absent.
	PageIn      *PageIn `json:"pageIn,omitempty"`
	PageInError string  `json:"pageInError,omitempty"`
	// HandTimed is the connection timed as the article's; SecondHandTimed the one after the
	// GetItem, the same work with the code paged in and the crypto library in use.
	HandTimed       HandTimed `json:"handTimed"`
	SecondHandTimed HandTimed `json:"secondHandTimed"`
	// CryptoFirstUse and CryptoSecondUse are one use each of what a TLS 1.3 client handshake
	// asks of ring (an X25519 agreement, SHA-256, an ECDSA P-256 check, an AES-GCM record), the
	// first in the process and the next; CryptoError says why they are absent.
	CryptoFirstUse  *Span  `json:"cryptoFirstUse,omitempty"`
	CryptoSecondUse *Span  `json:"cryptoSecondUse,omitempty"`
	CryptoError     string `json:"cryptoError,omitempty"`
	// RootsAgain is a second loading of the roots, Init's being the first (Answer's Roots);
	// RootsError says why it is absent.
	RootsAgain *RootsAgain `json:"rootsAgain,omitempty"`
	RootsError string      `json:"rootsError,omitempty"`
}

// PageIn is what a first connection pays for its code's first page-in from storage: two fresh
// processes of the function's binary, started in its environment (so at its CPU quota) before
// its own first connection, each loading the roots and making one connection timed by hand;
// before the first, the binary's pages that no process maps were dropped from the page cache.
type PageIn struct {
	// Pages is the binary's size in pages; ResidentBefore, ResidentAfterDrop and
	// ResidentAfterCold are how many of them were in the page cache before the drop, after it,
	// and after the cold probe (what it read back in, read-around included).
	Pages             int `json:"pages" jsonschema:"minimum=1"`
	ResidentBefore    int `json:"residentBefore" jsonschema:"minimum=0"`
	ResidentAfterDrop int `json:"residentAfterDrop" jsonschema:"minimum=0"`
	ResidentAfterCold int `json:"residentAfterCold" jsonschema:"minimum=0"`
	// Cold is the probe run after the drop, Warm the one right after it, its code in the page
	// cache; ColdError and WarmError say why one is absent.
	Cold      *Probe `json:"cold,omitempty"`
	Warm      *Probe `json:"warm,omitempty"`
	ColdError string `json:"coldError,omitempty"`
	WarmError string `json:"warmError,omitempty"`
}

// Probe is one fresh process's connection, timed as the article variant's first.
type Probe struct {
	// ProcessMs is the process's wall time from its start to its exit.
	ProcessMs float64 `json:"processMs" jsonschema:"minimum=0"`
	// Roots is the roots' loading and the ClientConfig's building, before the connection.
	Roots Span `json:"roots"`
	// HandTimed is its connection.
	HandTimed HandTimed `json:"handTimed"`
	// Total is the process's whole run as it ended: its wall time from the kernel's start of it,
	// its CPU and its page faults. The read-around of its first faults can read the handshake's
	// code in before the handshake, so a page-in is whole only here.
	Total Span `json:"total"`
}

// HandTimed is one connection the function made and timed itself: DNS (zero for an IP
// literal), TCP and the TLS handshake.
type HandTimed struct {
	DNS     Span `json:"dns"`
	Connect Span `json:"connect"`
	TLS     Span `json:"tls"`
	// Curve is the key exchange the handshake used, and DidResume says it resumed a session.
	Curve     string `json:"curve,omitempty"`
	DidResume bool   `json:"didResume"`
	// Error is what failed, if anything did.
	Error string `json:"error,omitempty"`
}

// Span is what the process was charged over one part: wall time, CPU, and the page faults that
// say whether code or data was paged in (major faults read from storage).
type Span struct {
	Ms          float64 `json:"ms" jsonschema:"minimum=0"`
	CPUMs       float64 `json:"cpuMs" jsonschema:"minimum=0"`
	MinorFaults int64   `json:"minorFaults" jsonschema:"minimum=0"`
	MajorFaults int64   `json:"majorFaults" jsonschema:"minimum=0"`
}

// RootsAgain is a second loading of the roots in the same process.
type RootsAgain struct {
	// Count is how many certificates were loaded.
	Count int `json:"count" jsonschema:"minimum=0"`
	// Load is what the loading cost.
	Load Span `json:"load"`
}

// Stack names a function's language runtime, AWS SDK and TLS library, with their versions, and
// says where its phases were timed: the same claims on another stack time other code.
type Stack struct {
	// Language is the function's language: go, rust, node or python.
	Language string `json:"language"`
	// LanguageVersion is its runtime's or compiler's version, as the function reads it.
	LanguageVersion string `json:"languageVersion"`
	// SDK and SDKVersion name the AWS SDK that makes the GetItem, or what stands in for one.
	SDK        string `json:"sdk"`
	SDKVersion string `json:"sdkVersion"`
	// TLS and TLSVersion name the TLS library of the SDK's connection.
	TLS        string `json:"tls"`
	TLSVersion string `json:"tlsVersion"`
	// Timed says where each phase was timed: on the SDK's own connection, by which hooks.
	Timed string `json:"timed"`
}

// Roots is a function's loading of the certificate authorities it trusts.
type Roots struct {
	// When is "init" (loaded while Init built the client) or "first call" (loaded by the
	// first call, before its handshake).
	When string `json:"when" jsonschema:"enum=init,enum=first call"`
	// Count is how many certificates were loaded.
	Count int `json:"count" jsonschema:"minimum=0"`
	// Ms and CPUMs are the loading's wall time and the CPU the process was charged over it.
	Ms    float64 `json:"ms" jsonschema:"minimum=0"`
	CPUMs float64 `json:"cpuMs" jsonschema:"minimum=0"`
}
