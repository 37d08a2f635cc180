package family

import "github.com/serverless-claims/claims/results/family/getitem"

// T1's comparison with the article's handshake at 128 MB, and the checks of it that the Rust
// function's article variant measures.

// ArticleComparison is T1's handshake at 128 MB beside the article's published one, with the
// figures of this run that explain the difference: the article measured wall time only.
type ArticleComparison struct {
	// PublishedTLSMs is the article's mean handshake at 128 MB (the catalog's T1 figure).
	PublishedTLSMs float64 `json:"publishedTlsMs" jsonschema:"minimum=0"`
	// PublishedCPUMs is the most CPU that handshake can have held: its wall time at 128 MB's
	// share of a vCPU (128 / 1,769), had it been all CPU.
	PublishedCPUMs float64 `json:"publishedCpuMs" jsonschema:"minimum=0"`
	// TLSMs and TLSCPUMs are this run's mean handshake at 128 MB, in wall time and in CPU;
	// ControlTLSMs and ControlTLSCPUMs the same function's unthrottled.
	TLSMs           float64 `json:"tlsMs" jsonschema:"minimum=0"`
	TLSCPUMs        float64 `json:"tlsCpuMs" jsonschema:"minimum=0"`
	ControlTLSMs    float64 `json:"controlTlsMs" jsonschema:"minimum=0"`
	ControlTLSCPUMs float64 `json:"controlTlsCpuMs" jsonschema:"minimum=0"`
	// ExpectedTLSMs is what the model's quota makes of TLSCPUMs: the CPU stretched by the
	// inverse of the share; the measured wall time beside it shows what else the handshake
	// waited for.
	ExpectedTLSMs float64 `json:"expectedTlsMs" jsonschema:"minimum=0"`
	// OtherFirstCallMs is the first call's mean time beyond DNS, TCP and TLS: the SDK's own
	// work (serialising, signing, loading what it loads lazily) and DynamoDB's answer, which
	// "almost all TLS" leaves out.
	OtherFirstCallMs float64 `json:"otherFirstCallMs"`
	// Curve, CipherSuite and TLSVersion are what the first handshake negotiated.
	Curve       string `json:"curve,omitempty"`
	CipherSuite string `json:"cipherSuite,omitempty"`
	TLSVersion  string `json:"tlsVersion,omitempty"`
	// Roots is the function's loading of its roots, where it times it apart from the
	// handshake (mean figures); nil where the roots are loaded inside the handshake.
	Roots *getitem.Roots `json:"roots,omitempty"`
	// Stack is the function's.
	Stack *getitem.Stack `json:"stack,omitempty"`
	// Machine is this machine's architecture and CPU model; the article's function ran on
	// arm64 (ArticleArch).
	Machine     string `json:"machine" jsonschema:"minLength=1"`
	ArticleArch string `json:"articleArch" jsonschema:"minLength=1"`
	// PeriodMs is the CPU model's period.
	PeriodMs float64 `json:"periodMs" jsonschema:"minimum=0"`
	// Checks are the parts of a first connection timed as the article timed its, where the
	// function has a variant that does (the Rust function's article variant); absent elsewhere.
	Checks *ArticleChecks `json:"checks,omitempty"`
	// Explanation says, sentence by sentence and with this run's figures, what the difference
	// from the article's figure is made of.
	Explanation []string `json:"explanation" jsonschema:"minLength=1,minItems=1"`
}

// ArticleChecks are T1's checks of the article's figure at 128 MB on a function whose first
// invocation times a connection of its own as the article's did (the Rust function's article
// variant): each part a first connection in a process pays, means over the variant's cold
// starts, and which of them can hold the article's figure at the quota.
type ArticleChecks struct {
	// ColdStarts is how many of the variant's cold starts the means are over.
	ColdStarts int `json:"coldStarts" jsonschema:"minimum=0"`
	// Parts are the parts, in the order the explanation names them.
	Parts []ArticlePart `json:"parts" jsonschema:"nullable"`
	// CanHold names the parts that can hold the article's figure (see ArticlePart.CanHold);
	// empty where none can.
	CanHold []string `json:"canHold" jsonschema:"nullable"`
	// PageIn is how much of the binary the page-in probes found cached, means over the cold
	// starts whose probes both answered; absent where none did.
	PageIn *PageInDrop `json:"pageIn,omitempty"`
}

// PageInDrop is the binary's size and how much of it was in the page cache before and after the
// page-in probes dropped it, in pages (means): what was dropped is what a cold probe can page in.
type PageInDrop struct {
	// ColdStarts is how many cold starts the means are over.
	ColdStarts int `json:"coldStarts" jsonschema:"minimum=1"`
	// Pages is the binary's size; ResidentBefore, ResidentAfterDrop and ResidentAfterCold its
	// pages in the page cache before the drop, after it, and after the cold probe.
	Pages             float64 `json:"pages" jsonschema:"minimum=0"`
	ResidentBefore    float64 `json:"residentBefore" jsonschema:"minimum=0"`
	ResidentAfterDrop float64 `json:"residentAfterDrop" jsonschema:"minimum=0"`
	ResidentAfterCold float64 `json:"residentAfterCold" jsonschema:"minimum=0"`
}

// ArticlePart is one part of a first connection, mean figures; a part that is a difference
// (the first of two alike less the second) can be negative where the two do not differ.
type ArticlePart struct {
	// Name says what the part is.
	Name string `json:"name" jsonschema:"minLength=1"`
	// Ms and CPUMs are its wall time and the CPU the process was charged over it.
	Ms    float64 `json:"ms"`
	CPUMs float64 `json:"cpuMs"`
	// MinorFaults and MajorFaults are the page faults over it (major ones read from storage);
	// zero where the part was not counted.
	MinorFaults float64 `json:"minorFaults"`
	MajorFaults float64 `json:"majorFaults"`
	// ExpectedMs is what the quota makes of CPUMs: the CPU stretched by the inverse of the
	// share. Ms beyond it was waiting that was not CPU.
	ExpectedMs float64 `json:"expectedMs"`
	// OfPublishedCPU is CPUMs over the most CPU the article's figure can hold
	// (ArticleComparison's PublishedCPUMs).
	OfPublishedCPU float64 `json:"ofPublishedCpu"`
	// CanHold says the part's CPU is within an order of magnitude of that most: beyond what the
	// architecture or a library's version moves it, it cannot make the article's figure. For a
	// part that is waiting, not work (Waiting: the code's page-in), it says the same of its wall
	// time against the article's, which the quota does not stretch.
	CanHold bool `json:"canHold"`
	// Waiting says the part is waiting rather than work, so CanHold weighs its wall time.
	Waiting bool `json:"waiting,omitempty"`
}
