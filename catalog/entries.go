package catalog

// The sources. Where an article's text names no author or no date, the entry says so rather
// than guess; fill it in when the publication is known.
var (
	// webFunctions is the article behind the W claims: a probe app in Node.js and in Go, measured
	// on one local process and on Lambda Web Functions. Its text gives no publication date, only
	// the day its Lambda figures were taken, which is the Date here: it was published no earlier.
	webFunctions = Source{
		Title:  "Lambda Web FunctionsのNode.jsでCPUバウンドな処理をすると、ほかのリクエストは待たされるか？ (With CPU-bound work in Node.js on Lambda Web Functions, do other requests wait?)",
		Author: unnamed,
		Date:   "2026-10-15",
	}

	// coldStart is the article behind T1-T5: a Rust function on 128 MB whose first DynamoDB call
	// is slow. The URL is the author's English edition of the same post.
	coldStart = Source{
		Title:  "Lambda Rust 初回リクエスト900ms の正体 — TLS ハンドシェイクが99%を占めていた (Lambda Rust's 900 ms first request explained: the TLS handshake is 99% of it)",
		Author: "Shinya Tahara (shinyaz.com)",
		Date:   "2026-03-31",
		URL:    "https://shinyaz.com/en/blog/2026/03/31/lambda-rust-tls-latency-breakdown",
	}

	// lambdaThrottling is T8's source, a measurement of Lambda's CPU from another project: the
	// Date is that of the run whose figures T8 quotes.
	lambdaThrottling = Source{
		Title:  "AWS Lambda CPU Throttling Test Tool (pwrdrvr/lambda-throttling)",
		Author: "pwrdrvr",
		Date:   "2025-03-01",
		URL:    "https://github.com/pwrdrvr/lambda-throttling",
	}

	// lambdaWebAdapter is T9's source: the one line found that says Lambda's Init runs with
	// burst CPU, in the documentation of AWS's Lambda Web Adapter, not in Lambda's own.
	lambdaWebAdapter = Source{
		Title:  "AWS Lambda Web Adapter: Async Initialization (awslabs/aws-lambda-web-adapter, docs/guide/src/configuration/async-init.md)",
		Author: "awslabs",
		URL:    "https://github.com/awslabs/aws-lambda-web-adapter/blob/main/docs/guide/src/configuration/async-init.md",
	}

	// threadpool is the article behind the P claims: where Node.js runs its "async" work. Its
	// text names neither author nor date.
	threadpool = Source{
		Title:  "名前の末尾の四文字が事故を分ける (The four letters at the end of a name decide whether there is an incident)",
		Author: unnamed,
	}
)

const (
	// unnamed is the Author of a source whose text names none.
	unnamed = "not named in the article"
)

// entries is the catalog, in ID order.
var entries = []Claim{
	{
		ID:        "W1",
		Statement: "Sent on its own, /ping answers at once, which makes it the baseline for the other patterns.",
		Kind:      Both,
		Source:    webFunctions,
		Published: "p50 4 ms (Node and Go); p95/max Node 12/37 ms, Go 6/7 ms",
	},
	{
		ID:        "W2",
		Statement: "On Node.js, a /ping sent while one /cpu is spinning waits until that /cpu has finished.",
		Kind:      Both,
		Source:    webFunctions,
		Published: "waited 20/20; p50 490 ms, p95 531, max 591",
	},
	{
		ID:        "W3",
		Statement: "On Node.js, a /ping sent while two /cpu are spinning waits until both have finished.",
		Kind:      Both,
		Source:    webFunctions,
		Published: "waited 20/20; p50 941 ms, p95 972, max 997",
	},
	{
		ID:        "W4",
		Statement: "On Go with GOMAXPROCS=2, a /ping sent while one /cpu is spinning does not wait for it.",
		Kind:      Both,
		Source:    webFunctions,
		Published: "0/20 waited; p50 4 ms; 16/20 under 10 ms; p95/max 51/204 ms",
	},
	{
		ID:        "W5",
		Statement: "On Go, a /ping does not wait even while two /cpu fill both of GOMAXPROCS=2, because since Go 1.14 the runtime preempts a goroutine that has run for 10 ms or more.",
		Kind:      Both,
		Source:    webFunctions,
		Published: "0/20 waited; p50 18 ms, range 5 to 41 ms",
	},
	{
		ID:        "W6",
		Statement: "On Lambda, while another execution environment is free, a /ping sent during a /cpu is routed away from the busy one.",
		Kind:      Live,
		Source:    webFunctions,
		Published: "other environment 20/20 (Node p50 93 ms, Go 84 ms)",
	},
	{
		ID:        "W7",
		Statement: "On Lambda, when every execution environment is busy, a Node.js /ping that lands beside a /cpu waits for it, while a Go /ping never does.",
		Kind:      Live,
		Source:    webFunctions,
		Published: "Node waited 16/16 co-located (p50 513 ms); Go 0/18 (p50 47 ms)",
	},
	{
		ID:        "W8",
		Statement: "On Lambda, the router sometimes puts both /cpu in one execution environment although the other one is free.",
		Kind:      Live,
		Source:    webFunctions,
		Published: "two /cpu on one side: Node 4/20, Go 2/20",
	},
	{
		ID:        "W9",
		Statement: "The app's own envId and Lambda's lambda-web-logstream response header always agree on whether two requests ran in the same execution environment.",
		Kind:      Live,
		Source:    webFunctions,
		Published: "agreed in every trial",
	},
	{
		ID:        "W10",
		Statement: "With asynchronous preemption off (GODEBUG=asyncpreemptoff=1) and GOMAXPROCS=1, Go's /ping does wait behind a /cpu loop that makes no function calls, which shows that preemption is what spares it.",
		Kind:      Both,
		Beyond:    true,
		Source:    webFunctions,
	},
	{
		ID:        "W11",
		Statement: "On Node.js, a /cpu moved to worker_threads or done by a built-in asynchronous API (crypto.pbkdf2) no longer stalls /ping.",
		Kind:      Both,
		Beyond:    true,
		Source:    webFunctions,
	},
	{
		ID:        "W12",
		Statement: "On Lambda, lowering maxConcurrencyPerEnvironment lowers the share of /ping that land in an execution environment busy with a /cpu.",
		Kind:      Live,
		Beyond:    true,
		Source:    webFunctions,
	},
	{
		ID:        "T1",
		Statement: "In a cold 128 MB function, the network set-up of the first DynamoDB call is almost all TLS handshake, with DNS and TCP a small part of it.",
		Kind:      Both,
		Source:    coldStart,
		Published: "DNS 7.3 ms, TCP 0.7 ms, TLS 745 ms (662 to 820): 99% of 753 ms",
		Explained: "The article's 745 ms is the wall time of a Rust (rustls) handshake at 128 MB's share of an arm64 vCPU. " +
			"Each T1 result, one per language of the function, puts its own 128 MB handshake beside it (summary.setup.article): " +
			"the CPU the handshake needed on this machine's architecture and TLS library, the wall time the quota stretches that CPU to, " +
			"whether the roots are loaded inside the handshake or in Init, the key exchange negotiated, and what the first call spends " +
			"beyond DNS, TCP and TLS, which on stacks whose SDK does more on its first call than Go's can outweigh the handshake itself.",
	},
	{
		ID:        "T2",
		Statement: "At 128 MB, Init is fast while the first handler invocation, which makes the first DynamoDB call, is slow.",
		Kind:      Both,
		Source:    coldStart,
		Published: "Init Duration 104 ms avg; first Duration 868 ms avg (912 in the earlier article)",
	},
	{
		ID:        "T3",
		Statement: "Warming the SDK's connection during Init with one cheap call (ListTables with limit 1) takes the handshake out of the first invocation and makes a cold start cost less.",
		Kind:      Both,
		Source:    coldStart,
		Published: "first Duration 912 to 21 ms; Init 112 to 166 ms (+54); billed Init+Duration 1,025 to 188 ms (-82%); the warm-up call itself 75 ms",
	},
	{
		ID:        "T4",
		Statement: "The warm-up's error must be ignored, so that a warm-up that fails never makes Init fail.",
		Kind:      Both,
		Source:    coldStart,
	},
	{
		ID:        "T5",
		Statement: "The handshake is slow because a 128 MB function gets little CPU, so more memory, which brings more CPU, makes it faster.",
		Kind:      Both,
		Source:    coldStart,
	},
	{
		ID:        "T6",
		Statement: "Traced inside the DynamoDB client's own call (in Go, aws-sdk-go-v2's with net/http/httptrace; in the other languages, at the same points on the client's own connection), the client's first call opens a new connection with a TLS handshake, so the phases are those of that connection and not of a separate one timed by hand.",
		Kind:      Both,
		Beyond:    true,
		Source:    coldStart,
	},
	{
		ID:        "T7",
		Statement: "What one TLS handshake costs depends on the certificate's key (RSA-2048 or ECDSA P-256), the TLS version (1.2 or 1.3), the key exchange (X25519 or hybrid ML-KEM) and whether the session is resumed.",
		Kind:      Both,
		Beyond:    true,
		Source:    coldStart,
		TestsNote: "`make bench`",
	},
	{
		ID:        "T8",
		Statement: "Lambda gives a function of M MB an M/1,769 share of one vCPU in 20 ms periods, so at 128 MB a busy loop runs about 1.44 ms and then stalls until the period ends, and the quota covers the whole environment.",
		Kind:      Both,
		Beyond:    true,
		Source:    lambdaThrottling,
		Published: "128 MB: 361.6 ms of CPU in 5,000 ms (7.2%), stalls of about 20.3, 40.4, 60.0, 79.7 and 97 ms; 256 MB: stalls of about 20 or 40 ms; the period 20 ms",
	},
	{
		ID:        "T9",
		Statement: "Init runs with more CPU than the memory size gives, so a function's Init Duration does not grow as its memory shrinks.",
		Kind:      Both,
		Beyond:    true,
		Source:    lambdaWebAdapter,
		Published: "\"Lambda managed runtimes offer up to 10 seconds for function initialization with burst CPU\"",
		TestsNote: "decided on AWS and through the stand-ins; locally the model's assumption, not a verdict",
	},
	{
		ID:        "P1",
		Statement: "crypto.pbkdf2Sync and crypto.pbkdf2 do the same work in the same time, and only the Sync one blocks the event loop.",
		Kind:      Local,
		Source:    threadpool,
	},
	{
		ID:        "P2",
		Statement: "libuv's threadpool runs every fs API but the watchers and the explicitly Sync ones, the asynchronous crypto.pbkdf2, scrypt, randomBytes, randomFill and generateKeyPair, dns.lookup and every asynchronous zlib API, while dns.resolve*() and sockets do not use it.",
		Kind:      Local,
		Source:    threadpool,
		Published: "the docs' list (UV_THREADPOOL_SIZE in Node's CLI docs; dns docs for resolve*); the article plans to verify it by measurement",
	},
	{
		ID:        "P3",
		Statement: "The threadpool has 4 slots by default, so 4 equal CPU-heavy jobs finish together and 8 finish in two waves.",
		Kind:      Local,
		Source:    threadpool,
		Published: "default 4 (Node docs); 4 jobs: 298 301 302 307 ms; 8 jobs: 315 317 321 325 | 700 703 703 704 ms (Node 22.11.0, 2 cores)",
	},
	{
		ID:        "P4",
		Statement: "UV_THREADPOOL_SIZE=8 removes the waves but not the total time on 2 cores, because it adds slots and not CPU.",
		Kind:      Local,
		Source:    threadpool,
		Published: "8 jobs: 315 317 321 325 | 700 703 703 704 ms; UV_THREADPOOL_SIZE=8: all 8 near 710 ms (Node 22.11.0, 2 cores)",
	},
	{
		ID:        "P5",
		Statement: "Setting process.env.UV_THREADPOOL_SIZE from inside the program is not guaranteed to work, because the pool may be created before user code runs.",
		Kind:      Local,
		Source:    threadpool,
		// Found by installing the releases between the matrix's runtimes: 24.2.0 and 22.17.0
		// ignore the ES module's line, 24.3.0 and 22.18.0 honour it.
		VersionChange: "Before Node 24.3.0 (and 22.18.0 on the 22 line), Node read an ES-module entry with the asynchronous fs/promises readFile, " +
			"which runs in the pool and so created it, at its default 4 slots, before the entry's first line; " +
			"since then the default ES-module loader reads the file synchronously (nodejs/node#57419, \"esm: syncify default path of ModuleLoader.load\"), " +
			"so the first line's setting takes effect for both entry forms.",
	},
	{
		ID:        "P6",
		Statement: "Features that share nothing in the code slow each other through the pool's 4 shared slots, as when asynchronous compression that fills the pool delays file reads.",
		Kind:      Local,
		Source:    threadpool,
	},
	{
		ID:        "P7",
		Statement: "dns.lookup queues in the threadpool and dns.resolve4 does not, so a service that resolves many names slows its own file reads.",
		Kind:      Local,
		Source:    threadpool,
		Published: "the docs' list (UV_THREADPOOL_SIZE in Node's CLI docs; dns docs for resolve*); the article plans to verify it by measurement",
		TestsNote: "refutation asserted",
	},
	{
		ID:        "P8",
		Statement: "JSON.parse has no asynchronous version, so parsing a 12.9 MB document blocks the event loop for most of the time it takes.",
		Kind:      Local,
		Source:    threadpool,
		Published: "76 ms parse, 58 ms loop block (Node 22.11.0)",
	},
	{
		ID:        "P9",
		Statement: "zlib.gzipSync of 8 MB blocks the event loop for as long as it compresses while zlib.gzip hardly blocks it, though the work itself is about the same.",
		Kind:      Local,
		Source:    threadpool,
		Published: "Sync 178 ms work / 183 ms loop block; async 219 ms work / 9 ms loop block (Node 22.11.0)",
	},
	{
		ID:        "P10",
		Statement: "A Sync call at start-up does no harm, while the same call on the request path stalls every request.",
		Kind:      Local,
		Source:    threadpool,
	},
	{
		ID:        "P11",
		Statement: "The threadpool can be no larger than libuv's absolute maximum of 1024 threads.",
		Kind:      Local,
		Source:    threadpool,
		Published: "absolute maximum 1024 (libuv docs)",
	},
}
