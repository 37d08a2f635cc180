//! The function: what Init builds (the roots, the client, the warm variant's warm-up) and the
//! handler, which makes one GetItem, timed, and answers as results/family/getitem's Answer.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::ClientConfig;

use serde_json::{json, Map, Value};

use crate::article::{self, Parts};
use crate::broken;
use crate::clock::{ms, process_cpu};
use crate::dynamo::Dynamo;
use crate::http::{Client, Endpoint};
use crate::outage;
use crate::pagein;
use crate::settings::{Settings, VARIANT_ARTICLE, VARIANT_WARM};
use crate::sigv4::Signer;
use crate::tls::{load_roots, Roots, RootsLoad};
use crate::trace::Phases;

/// The function's own measure of its Init, reported in every answer.
#[derive(Clone, Copy, Debug)]
pub struct InitMeasure {
    /// From the process's start to just before the first invocation/next.
    pub ms: f64,
    /// Where the start came from: "proc" (the kernel's starttime, in whole clock ticks, so ms
    /// may be up to a tick too long) or "main" (main's entry, when /proc could not be read).
    pub from: &'static str,
    /// From main's entry to the same end, to the microsecond: what the process did before main
    /// (the dynamic loader, Rust's runtime start) is outside it.
    pub main_ms: f64,
}

/// Measures Init from main_start (main's entry) to now.
pub fn measure_init(main_start: Instant) -> InitMeasure {
    let end = Instant::now();
    let main_ms = ms(end - main_start);
    match crate::clock::since_process_start() {
        Ok(d) => InitMeasure {
            ms: ms(d.saturating_sub(end.elapsed())),
            from: "proc",
            main_ms,
        },
        Err(_) => InitMeasure {
            ms: main_ms,
            from: "main",
            main_ms,
        },
    }
}

/// The initialised function.
pub struct Function {
    variant: String,
    table: String,
    key: Map<String, Value>,
    client: Dynamo,
    roots: RootsLoad,
    /// The warm-up's phases and error; None for the cold variant.
    warmup: Option<Phases>,
    /// The article variant's: the ClientConfigs of its two hand-timed connections, built in Init
    /// as the article built its before its timer; taken by the first invocation.
    article: Option<(Arc<ClientConfig>, Arc<ClientConfig>)>,
    /// The article variant's parts, measured by the first invocation and reported by it.
    parts: Option<Parts>,
    ca_file: Option<String>,
    endpoint: Endpoint,
    /// Init's measure, set just before the first invocation/next.
    pub init: Option<InitMeasure>,
    pid: u32,
    calls: u64,
    /// The tokio runtime the client's calls run on, started in main before Init's client.
    rt: tokio::runtime::Runtime,
}

/// Init: the roots and the client (hyper's, on rt), and for the warm variant the warm-up.
/// Nothing goes on the network but the warm-up.
pub fn initialize(s: Settings, rt: tokio::runtime::Runtime) -> Result<Function, String> {
    let roots = load_roots(s.ca_file.as_deref())?;
    // hyper's Client and its pool belong to the runtime they run on.
    let entered = rt.enter();
    let client = Dynamo {
        http: Client::new(roots.client_config()),
        endpoint: s.endpoint.clone(),
        signer: Signer {
            credentials: s.credentials.clone(),
            region: s.region.clone(),
            service: "dynamodb".into(),
        },
    };
    let mut warmup = None;
    if s.variant == VARIANT_WARM {
        let mut on = client.clone();
        if let Some(how) = &s.warmup_outage {
            on = on.at(Endpoint::parse(&outage::endpoint(how)?)?);
        }
        let on = broken::warmup_client(&on, || own_client(&on, &roots));
        warmup = Some(rt.block_on(warm_up(&on, s.warmup_timeout)));
    }
    drop(entered);
    let article = (s.variant == VARIANT_ARTICLE).then(|| (roots.client_config(), roots.client_config()));
    let f = Function {
        article,
        parts: None,
        ca_file: s.ca_file.clone(),
        endpoint: s.endpoint.clone(),
        variant: s.variant.clone(),
        table: s.table.clone(),
        key: s.key.clone(),
        client,
        roots: roots.load,
        warmup,
        init: None,
        pid: std::process::id(),
        calls: 0,
        rt,
    };
    Ok(f)
}

/// A client like c with an HTTP client, pool and TLS configuration of its own, from the same
/// roots.
fn own_client(c: &Dynamo, roots: &Roots) -> Dynamo {
    Dynamo {
        http: Client::new(roots.client_config()),
        ..c.clone()
    }
}

/// The article's warm-up call, ListTables with Limit 1, which needs no table and leaves the
/// client's connection in its pool for the handler. Its error is in the result, not returned:
/// the caller must not fail Init over it (claim T4), and the timeout keeps a dead endpoint from
/// eating Init's 10 seconds.
async fn warm_up(client: &Dynamo, timeout: Duration) -> Phases {
    let mut p = Phases::default();
    if let Err(e) = client.list_tables(Instant::now() + timeout, &mut p).await {
        p.error = e;
    }
    broken::reported(p)
}

impl Function {
    /// The warm-up's error, if it failed.
    pub fn warmup_error(&self) -> Option<&str> {
        self.warmup.as_ref().map(|w| w.error.as_str()).filter(|e| !e.is_empty())
    }

    /// The handler: one GetItem, timed, answered as JSON. The event is ignored. A failed GetItem
    /// is answered, with its phases and its error in "error", rather than failed: the phases of a
    /// call that failed are evidence too.
    pub fn handle(&mut self, deadline: Instant) -> Value {
        let (entered, entered_cpu) = (Instant::now(), process_cpu());
        self.calls += 1;
        let mut p = Phases::default();
        let configs = self.article.take();
        let page_in = configs.as_ref().map(|_| {
            let measured = pagein::measure(deadline);
            std::thread::sleep(pagein::QUOTA_REFILL);
            measured
        });
        let crypto = configs.as_ref().map(|_| article::crypto_uses());
        let first = configs.as_ref().map(|(c, _)| {
            self.rt
                .block_on(article::hand_timed(c.clone(), &self.endpoint, deadline))
        });
        let found = match self
            .rt
            .block_on(self.client.get_item(&self.table, &self.key, deadline, &mut p))
        {
            Ok(found) => found,
            Err(e) => {
                p.error = e;
                false
            }
        };
        if let (Some((_, again)), Some(page_in), Some(crypto), Some(first)) = (configs, page_in, crypto, first) {
            let second = self.rt.block_on(article::hand_timed(again, &self.endpoint, deadline));
            self.parts = Some(Parts {
                page_in,
                crypto,
                first,
                second,
                roots_again: article::roots_again(self.ca_file.as_deref()),
            });
        }
        let p = broken::reported(p);
        let mut m = Map::new();
        p.put(&mut m);
        let init = self.init.unwrap_or(InitMeasure {
            ms: 0.0,
            from: "",
            main_ms: 0.0,
        });
        m.insert("found".into(), found.into());
        m.insert("variant".into(), self.variant.clone().into());
        m.insert("invocation".into(), self.calls.into());
        m.insert("initMs".into(), init.ms.into());
        m.insert("initFrom".into(), init.from.into());
        m.insert("initGoMs".into(), init.main_ms.into());
        if let Some(w) = &self.warmup {
            m.insert("warmup".into(), w.to_json());
        }
        if let Some(a) = self.parts.take() {
            m.insert("article".into(), a.to_json());
        }
        m.insert("pid".into(), self.pid.into());
        m.insert(
            "roots".into(),
            json!({ "when": "init", "count": self.roots.count, "ms": self.roots.ms, "cpuMs": self.roots.cpu_ms }),
        );
        m.insert("stack".into(), stack());
        m.insert("handlerMs".into(), ms(entered.elapsed()).into());
        m.insert("handlerCpuMs".into(), ms(process_cpu() - entered_cpu).into());
        Value::Object(m)
    }
}

/// The function's stack: the compiler that built it and the crates it was built with, as
/// build.rs read them at build time.
fn stack() -> Value {
    json!({
        "language": "rust",
        "languageVersion": env!("GETITEM_RUSTC_VERSION"),
        "sdk": "hand-written DynamoDB JSON 1.0 client with SigV4 over hyper 1 (hyper-util's legacy Client) on tokio (no AWS SDK for Rust in Debian)",
        "sdkVersion": concat!("getitem-rust ", env!("CARGO_PKG_VERSION")),
        "tls": concat!("rustls ", env!("GETITEM_RUSTLS_VERSION"), " with ring ", env!("GETITEM_RING_VERSION")),
        "tlsVersion": env!("GETITEM_RUSTLS_VERSION"),
        "timed": TIMED,
    })
}

/// Where the phases were timed.
const TIMED: &str =
    "inside hyper-util's legacy Client (hyper 1), on its own connection: by the function's connector, which \
hyper calls only when its pool has no idle connection, in the request's task: DNS around \
tokio::net::lookup_host (none for an IP literal), connect around tokio::net::TcpStream::connect, TLS \
around tokio_rustls::TlsConnector::connect; reused when the response's connection (hyper's \
Connected::extra) is not one the connector made for the request; pooled when the body was read to \
its end on a keep-alive response and the connection had not closed; ttfb from Client::request to \
the response's head; CPU from clock_gettime(CLOCK_PROCESS_CPUTIME_ID)";
