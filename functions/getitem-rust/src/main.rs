//! The cold-start claims' GetItem Lambda function in Rust, as the article's Rust function was
//! made: rustls with ring, the system's roots loaded through rustls-native-certs when the client
//! is built. There is no AWS SDK for Rust in Debian, which this function is built from, so its
//! DynamoDB client is its own: the JSON 1.0 protocol signed with SigV4 (sigv4.rs, dynamo.rs) over
//! hyper 0.14's Client on tokio, as aws-sdk-rust's (http.rs), whose connections the function's
//! connector makes with tokio-rustls and times step by step (connector.rs).
//! It is built as bootstrap for provided.al2023 by harness/lambda/lambdazip (rust.go), offline,
//! with Debian's Rust toolchain and crates.
//!
//! It answers as functions/getitem does (results/family/getitem's Answer), with the same
//! settings, all from the environment:
//!   - CLAIMS_VARIANT: cold (Init builds the client and nothing else) or warm (Init also makes
//!     one ListTables, Limit 1, through the same client and pool, bounded by
//!     CLAIMS_WARMUP_TIMEOUT_MS, default 1000; its error is reported in every answer and on
//!     stderr, never fatal); or article (as cold, but the first invocation is timed as the
//!     article's was, its own hand-timed connection before the SDK's call, with what a first
//!     connection pays that a second does not, article.rs, and what it pays for its code's
//!     first page-in, pagein.rs);
//!   - CLAIMS_TABLE, and CLAIMS_KEY: the item's key as a JSON object, a string value being a
//!     DynamoDB S and a number an N;
//!   - CLAIMS_CA_FILE: a PEM file of the CAs to trust instead of the system's;
//!   - CLAIMS_WARMUP_OUTAGE: refused or stalled sends the warm-up (only) to an endpoint inside
//!     the sandbox that refuses or never answers (claim T4);
//!   - AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL), an https URL, else DynamoDB's regional
//!     endpoint; AWS_REGION (or AWS_DEFAULT_REGION); AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
//!     AWS_SESSION_TOKEN.
//!
//! Its deliberately broken builds are Cargo features (broken.rs): brokentrace, brokenwarmup,
//! brokenwarmclient.
//!
//! A setting that is missing or wrong ends the process with a message on stderr and exit status
//! 2 before the first invocation/next, so that Lambda (or the emulator) reports an Init failure
//! naming it.

mod article;
mod broken;
mod clock;
mod connector;
mod dynamo;
mod function;
mod http;
mod outage;
mod pagein;
mod runtime;
mod settings;
mod sigv4;
mod tls;
mod trace;

use std::process::exit;
use std::time::Instant;

fn main() {
    let main_start = Instant::now();
    if std::env::var_os(pagein::PROBE_SETTING).is_some() {
        // Not the function: one of the article variant's page-in probes (pagein.rs).
        match pagein::probe() {
            Ok(answer) => {
                println!("{answer}");
                exit(0)
            }
            Err(e) => fail(2, &format!("page-in probe: {e}")),
        }
    }
    // The runtime first, as #[tokio::main] starts it before main's body: the multi-threaded
    // runtime, #[tokio::main]'s default and what aws-sdk-rust's examples run on, one worker per
    // CPU. Its workers run hyper's connection tasks and put a connection back into the pool
    // between Init and the first invocation.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(2, &format!("starting the tokio runtime: {e}")));
    let s = settings::load(&|k| std::env::var(k).ok()).unwrap_or_else(|e| fail(2, &e));
    let mut f = function::initialize(s, rt).unwrap_or_else(|e| fail(2, &e));
    if let Some(e) = f.warmup_error() {
        if broken::FAIL_INIT_ON_WARMUP_ERROR {
            fail(1, &format!("warm-up failed, failing Init (brokenwarmup build): {e}"));
        }
        // Reported, not fatal: a warm-up is an optimisation, and a failed Init is retried by
        // Lambda at the cost of a whole new Init (the article's point).
        eprintln!("getitem: warm-up failed (ignored): {e}");
    }
    let api = std::env::var("AWS_LAMBDA_RUNTIME_API")
        .unwrap_or_else(|_| fail(2, "AWS_LAMBDA_RUNTIME_API is not set: not in a Lambda runtime"));
    f.init = Some(function::measure_init(main_start));
    let err = runtime::run(&api, |inv| {
        let answer = f.handle(inv.deadline);
        serde_json::to_vec(&answer).unwrap_or_else(|e| format!(r#"{{"error":{:?}}}"#, e.to_string()).into_bytes())
    });
    fail(1, &format!("runtime API: {err}"));
}

/// Ends the process with status after saying why on stderr.
fn fail(status: i32, why: &str) -> ! {
    eprintln!("getitem: {why}");
    exit(status)
}
