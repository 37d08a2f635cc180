//! The Lambda Runtime API loop, as a custom runtime's bootstrap runs it: plain HTTP/1.1 over
//! std::net::TcpStream to AWS_LAMBDA_RUNTIME_API, one connection per request (the API is on the
//! sandbox's loopback, and none of this is timed).

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::http::read_response;

/// The Runtime API's version prefix.
const API: &str = "/2018-06-01/runtime";

/// One invocation, as invocation/next gives it.
pub struct Invocation {
    /// Lambda-Runtime-Aws-Request-Id: where the answer goes.
    pub request_id: String,
    /// Lambda-Runtime-Deadline-Ms, as an instant of this process's clock.
    pub deadline: Instant,
}

/// Takes invocations from the Runtime API at api (host:port) forever, answering each with what
/// handle returns. It returns only when the API fails, with the error.
pub fn run(api: &str, mut handle: impl FnMut(&Invocation) -> Vec<u8>) -> String {
    loop {
        let inv = match next(api) {
            Ok(inv) => inv,
            Err(e) => return format!("{API}/invocation/next: {e}"),
        };
        let answer = handle(&inv);
        let path = format!("{API}/invocation/{}/response", inv.request_id);
        if let Err(e) = request(api, "POST", &path, &answer) {
            return format!("{path}: {e}");
        }
    }
}

/// Waits for the next invocation.
fn next(api: &str) -> Result<Invocation, String> {
    let (status, headers, _event) = request(api, "GET", &format!("{API}/invocation/next"), b"")?;
    if status != 200 {
        return Err(format!("status {status}"));
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let request_id = header("Lambda-Runtime-Aws-Request-Id").ok_or("no Lambda-Runtime-Aws-Request-Id")?;
    let deadline_ms: u64 = header("Lambda-Runtime-Deadline-Ms")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    // No deadline header means the emulator's default timeout; a minute stands in for it.
    let left = if deadline_ms > 0 {
        Duration::from_millis(deadline_ms.saturating_sub(now_ms))
    } else {
        Duration::from_secs(60)
    };
    Ok(Invocation {
        request_id,
        deadline: Instant::now() + left,
    })
}

/// A Runtime API answer: its status, headers and body.
type Reply = (u16, Vec<(String, String)>, Vec<u8>);

/// One request to the Runtime API, and its answer.
fn request(api: &str, method: &str, path: &str, body: &[u8]) -> Result<Reply, String> {
    let mut sock = TcpStream::connect(api).map_err(|e| format!("connecting to {api}: {e}"))?;
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {api}\r\nUser-Agent: getitem-rust\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    sock.write_all(&req).map_err(|e| format!("writing: {e}"))?;
    let (resp, _) = read_response(&mut sock).result.map_err(|e| format!("reading: {e}"))?;
    Ok((resp.status, resp.headers, resp.body))
}
