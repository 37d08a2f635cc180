//! The function's HTTP client, as aws-sdk-rust's is: hyper 1 through hyper-util's legacy Client
//! on tokio, its pool,
//! and a connector that makes rustls connections (connector.rs) and times each of its steps
//! (trace.rs). The warm-up's connection is the one the handler's first call takes from hyper's
//! pool, when both go through one client. It also reads an HTTP/1.1 response from a blocking
//! stream, for the Runtime API's loop (runtime.rs), which stays on std.

use std::io::{self, Read};
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::CONNECTION;
use hyper::{Request, Version};
use hyper_util::rt::{TokioExecutor, TokioTimer};
use rustls::pki_types::ServerName;
use rustls::ClientConfig;

use crate::clock::ms;
use crate::connector::{ConnInfo, Connector, Dial, WriteError, DIAL};
use crate::trace::Phases;

/// Where requests go: an https:// URL's host, port and path. The connector reads the host and
/// port again from hyper's Uri, which is made from authority and path; parse checks them.
#[derive(Clone, Debug)]
#[allow(dead_code)]
pub struct Endpoint {
    /// The host, without brackets for an IPv6 address.
    pub host: String,
    /// The port, 443 by default.
    pub port: u16,
    /// The host's address when it is an IP literal: then there is no DNS lookup.
    pub ip: Option<IpAddr>,
    /// The Host header's value: the host, and the port unless it is 443.
    pub authority: String,
    /// The request path, "/" for none.
    pub path: String,
    /// The name the server's certificate is verified for.
    pub server_name: ServerName<'static>,
}

impl Endpoint {
    /// Parses an https:// URL with no query, user or fragment. Plain http is refused: the
    /// function is there to time TLS.
    pub fn parse(url: &str) -> Result<Endpoint, String> {
        let rest = url
            .strip_prefix("https://")
            .ok_or_else(|| format!("{url:?}: want an https:// URL"))?;
        if rest.contains(['?', '#', '@']) {
            return Err(format!("{url:?}: want no user, query or fragment"));
        }
        let (hostport, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let (host, port) = if let Some(h) = hostport.strip_prefix('[') {
            let (h, after) = h.split_once(']').ok_or_else(|| format!("{url:?}: unclosed '['"))?;
            (h, after.strip_prefix(':'))
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (hostport, None),
            }
        };
        if host.is_empty() {
            return Err(format!("{url:?}: no host"));
        }
        let port = match port {
            Some(p) => p.parse::<u16>().map_err(|_| format!("{url:?}: port {p:?}"))?,
            None => 443,
        };
        let ip: Option<IpAddr> = host.parse().ok();
        let server_name = match ip {
            Some(ip) => ServerName::IpAddress(ip.into()),
            None => {
                ServerName::try_from(host.to_string()).map_err(|_| format!("{url:?}: {host:?} is not a DNS name"))?
            }
        };
        let bracketed = if matches!(ip, Some(IpAddr::V6(_))) {
            format!("[{host}]")
        } else {
            host.to_string()
        };
        let authority = if port == 443 {
            bracketed
        } else {
            format!("{bracketed}:{port}")
        };
        Ok(Endpoint {
            host: host.into(),
            port,
            ip,
            authority,
            path: path.into(),
            server_name,
        })
    }
}

/// How an attempt failed, which says whether the call may try again.
#[derive(Debug)]
pub enum Failure {
    /// A pooled connection was dead before it answered (the server had closed it): the request
    /// can go again at once on a new connection.
    Stale(String),
    /// A failure another attempt may not meet (a refused or reset connection): after a backoff.
    Transient(String),
    /// A failure another attempt would meet again, or no time left.
    Final(String),
}

/// A response: its status and body.
#[derive(Debug)]
pub struct Response {
    /// The HTTP status code.
    pub status: u16,
    /// The headers, names as sent.
    pub headers: Vec<(String, String)>,
    /// The body, whole.
    pub body: Vec<u8>,
}

/// The client: hyper-util's legacy Client (hyper 1's pooled client, which aws-sdk-rust uses),
/// with its connection pool, over the function's connector and its TLS configuration (roots,
/// session cache). Clones share the pool.
#[derive(Clone)]
pub struct Client {
    hyper: hyper_util::client::legacy::Client<Connector, Full<Bytes>>,
    write_error: WriteError,
}

impl Client {
    /// A client with config and an empty pool, hyper's defaults otherwise (HTTP/1.1, idle
    /// connections kept for 90 s, a request that a pooled connection closed under before it was
    /// written sent again on another), its tasks and timer tokio's, as hyper 0.14's Client had
    /// them. It must be made inside the tokio runtime.
    pub fn new(config: Arc<ClientConfig>) -> Client {
        let write_error = WriteError::default();
        let hyper = hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .build(Connector::new(config, write_error.clone()));
        Client { hyper, write_error }
    }

    /// Sends one POST request to ep, its headers already signed, through hyper's Client, and
    /// reads the whole response, its phases into p (an attempt's, fresh): the connector's steps
    /// when hyper called it for this request, which connection the response came over, the time
    /// to the response's head. Everything, the connection's set-up included, is bounded by
    /// deadline.
    pub async fn post(
        &self,
        ep: &Endpoint,
        headers: &[(String, String)],
        body: &[u8],
        deadline: Instant,
        p: &mut Phases,
    ) -> Result<Response, Failure> {
        let dial = Arc::new(Mutex::new(Dial::default()));
        self.write_error.lock().unwrap().clear();
        let exchange = DIAL.scope(dial.clone(), self.exchange(ep, headers, body, &dial, p));
        let r = tokio::time::timeout_at(tokio::time::Instant::from_std(deadline), exchange).await;
        let d = dial.lock().unwrap().clone();
        p.write_error = self.write_error.lock().unwrap().clone();
        let r = match r {
            Ok(r) => r,
            Err(_) => {
                p.reused = d.made.is_empty() && p.reused;
                Err(Failure::Final(format!(
                    "request to {}: timed out (the call's deadline)",
                    ep.authority
                )))
            }
        };
        // hyper's pool, finding no idle connection when the request comes, races a connect
        // against its checkout and sends the request on whichever is ready first: the connection
        // of the request before it, which a task of hyper's puts back a moment after that
        // request's end, can win over the one made for this request. The call's phases are those
        // of the connection it went out on, so a connection made for it and not used is not in
        // them.
        if !p.reused {
            (p.dns_ms, p.dns_cpu_ms) = (d.dns_ms, d.dns_cpu_ms);
            (p.connect_ms, p.connect_cpu_ms) = (d.connect_ms, d.connect_cpu_ms);
            (p.tls_ms, p.tls_cpu_ms) = (d.tls_ms, d.tls_cpu_ms);
        }
        r
    }

    async fn exchange(
        &self,
        ep: &Endpoint,
        headers: &[(String, String)],
        body: &[u8],
        dial: &Mutex<Dial>,
        p: &mut Phases,
    ) -> Result<Response, Failure> {
        let uri = format!("https://{}{}", ep.authority, ep.path);
        let mut req = Request::post(uri.as_str());
        for (k, v) in headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let req = req
            .body(Full::new(Bytes::from(body.to_vec())))
            .map_err(|e| Failure::Final(format!("request to {uri}: {e}")))?;
        // Until the connector says otherwise, a request that fails went out on a pooled
        // connection: hyper calls the connector only when its pool has none.
        p.reused = true;
        let start = Instant::now();
        let sent = self.hyper.request(req).await;
        let made = dial.lock().unwrap().made.clone();
        let resp = match sent {
            Ok(resp) => resp,
            Err(e) => {
                p.reused = made.is_empty();
                let msg = format!("request to {}: {}", ep.authority, chain(&e));
                return Err(if e.is_connect() {
                    match io_kind(&e) {
                        // A certificate that does not verify, or a protocol error: again is the same.
                        Some(io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput) => Failure::Final(msg),
                        _ => Failure::Transient(msg),
                    }
                } else if p.reused {
                    Failure::Stale(msg)
                } else {
                    Failure::Transient(msg)
                });
            }
        };
        // hyper resolves the request's future when the response's head is read.
        p.ttfb_ms = ms(start.elapsed());
        let info = resp.extensions().get::<ConnInfo>().cloned();
        if let Some(c) = &info {
            p.reused = !made.contains(&c.id);
            p.remote_addr = c.remote_addr.clone();
            p.tls_version = c.tls_version.clone();
            p.cipher_suite = c.cipher_suite.clone();
            p.curve = c.curve.clone();
            p.did_resume = c.did_resume;
        }
        let status = resp.status().as_u16();
        let keep_alive = resp.version() == Version::HTTP_11
            && !resp
                .headers()
                .get_all(CONNECTION)
                .iter()
                .any(|v| v.to_str().is_ok_and(|v| v.to_ascii_lowercase().contains("close")));
        let headers = resp
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect();
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| Failure::Transient(format!("reading the response from {}: {}", ep.authority, chain(&e))))?
            .to_bytes();
        // Unlike hyper 0.14's, hyper-util's Client does not hold back the body's end until the
        // connection is back in the pool: a task it spawned puts it back once the connection is
        // ready for another request. Pooled says the connection could go back, not that it has.
        p.pooled = keep_alive && info.is_some_and(|c| !c.state.closed.load(Ordering::Relaxed));
        Ok(Response {
            status,
            headers,
            body: body.to_vec(),
        })
    }
}

/// An error with its causes, as "error: cause: cause".
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s = format!("{s}: {t}");
        }
        cur = c.source();
    }
    s
}

/// The kind of the first I/O error among e's causes.
fn io_kind(e: &(dyn std::error::Error + 'static)) -> Option<io::ErrorKind> {
    let mut cur = Some(e);
    while let Some(c) = cur {
        if let Some(io) = c.downcast_ref::<io::Error>() {
            return Some(io.kind());
        }
        cur = c.source();
    }
    None
}

/// What reading a response gave: the response and whether the connection can be reused, or the
/// error; and when its first byte came, if it did.
pub struct ReadOutcome {
    /// The response and whether the connection may carry another request, or the error.
    pub result: io::Result<(Response, bool)>,
    /// When the response's first byte was read.
    pub first_byte: Option<Instant>,
}

/// Reads one HTTP/1.1 response from r: its status line and headers, then its body by
/// Content-Length, chunked, or to the end of the stream. The connection can be reused when the
/// body had a length, nothing followed it, and neither side said close.
pub fn read_response<R: Read>(r: &mut R) -> ReadOutcome {
    let mut out = ReadOutcome {
        result: Err(io::ErrorKind::UnexpectedEof.into()),
        first_byte: None,
    };
    out.result = read_response_into(r, &mut out.first_byte);
    out
}

fn read_response_into<R: Read>(r: &mut R, first_byte: &mut Option<Instant>) -> io::Result<(Response, bool)> {
    let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 16 * 1024];
    let mut eof = false;
    // Reads more into buf; false at the end of the stream.
    let mut more = |buf: &mut Vec<u8>, eof: &mut bool| -> io::Result<bool> {
        loop {
            match r.read(&mut chunk) {
                Ok(0) => {
                    *eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    if first_byte.is_none() {
                        *first_byte = Some(Instant::now());
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    };
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i + 4;
        }
        if !more(&mut buf, &mut eof)? {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the connection closed before a response",
            ));
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let status: u16 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad(format!("status line {status_line:?}")))?;
    let (mut length, mut chunked, mut close) = (None, false, version != "HTTP/1.1");
    let mut headers = Vec::new();
    for line in lines {
        let Some((k, v)) = line.split_once(':') else { continue };
        let (k, v) = (k.trim(), v.trim());
        headers.push((k.to_string(), v.to_string()));
        match k.to_ascii_lowercase().as_str() {
            "content-length" => length = Some(v.parse::<usize>().map_err(|_| bad(format!("Content-Length {v:?}")))?),
            "transfer-encoding" => chunked = v.to_ascii_lowercase().contains("chunked"),
            "connection" => close = close || v.eq_ignore_ascii_case("close"),
            _ => {}
        }
    }
    let no_body = status == 204 || status == 304 || (100..200).contains(&status);
    let (body, reusable) = if no_body {
        (Vec::new(), buf.len() == head_end)
    } else if chunked {
        loop {
            if let Some((body, used)) = dechunk(&buf[head_end..]).map_err(bad)? {
                break (body, head_end + used == buf.len());
            }
            if !more(&mut buf, &mut eof)? {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the connection closed inside a chunked body",
                ));
            }
        }
    } else if let Some(n) = length {
        while buf.len() < head_end + n {
            if !more(&mut buf, &mut eof)? {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the connection closed inside the body",
                ));
            }
        }
        (buf[head_end..head_end + n].to_vec(), buf.len() == head_end + n)
    } else {
        while more(&mut buf, &mut eof)? {}
        (buf[head_end..].to_vec(), false)
    };
    Ok((Response { status, headers, body }, reusable && !close && !eof))
}

/// Decodes a chunked body from data: the body and the bytes it took, None while incomplete.
fn dechunk(data: &[u8]) -> Result<Option<(Vec<u8>, usize)>, String> {
    let mut body = Vec::new();
    let mut at = 0;
    loop {
        let Some(eol) = find(&data[at..], b"\r\n") else {
            return Ok(None);
        };
        let size_text = String::from_utf8_lossy(&data[at..at + eol]).into_owned();
        let size_hex = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_hex, 16).map_err(|_| format!("chunk size {size_text:?}"))?;
        at += eol + 2;
        if size == 0 {
            // Trailers, if any, end with an empty line.
            return Ok(find(&data[at..], b"\r\n").and_then(|i| {
                if i == 0 {
                    Some((std::mem::take(&mut body), at + 2))
                } else {
                    find(&data[at..], b"\r\n\r\n").map(|j| (std::mem::take(&mut body), at + j + 4))
                }
            }));
        }
        if data.len() < at + size + 2 {
            return Ok(None);
        }
        body.extend_from_slice(&data[at..at + size]);
        at += size + 2;
    }
}

/// The first index of needle in hay.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> (u16, String, bool) {
        let r = read_response(&mut s.as_bytes());
        let (resp, keep) = r.result.expect("a response");
        (resp.status, String::from_utf8(resp.body).unwrap(), keep)
    }

    #[test]
    fn responses_by_length_chunks_and_close() {
        assert_eq!(
            read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"),
            (200, "{}".into(), true)
        );
        assert_eq!(
            read("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nConnection: close\r\n\r\n{}"),
            (200, "{}".into(), false)
        );
        assert_eq!(
            read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}extra"),
            (200, "{}".into(), false)
        );
        assert_eq!(
            read("HTTP/1.1 400 Bad\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n"),
            (400, "abcde".into(), true)
        );
        assert_eq!(
            read("HTTP/1.0 200 OK\r\n\r\nto the end"),
            (200, "to the end".into(), false)
        );
        assert_eq!(read("HTTP/1.1 204 No Content\r\n\r\n"), (204, "".into(), true));
    }

    #[test]
    fn truncated_responses_fail() {
        for s in [
            "",
            "HTTP/1.1 200 OK\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n{}",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
        ] {
            let r = read_response(&mut s.as_bytes());
            assert!(r.result.is_err(), "{s:?} read as a response");
            assert_eq!(r.first_byte.is_some(), !s.is_empty(), "{s:?}");
        }
    }

    #[test]
    fn endpoints() {
        let e = Endpoint::parse("https://127.0.0.1:8443").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.authority.as_str(), e.path.as_str()),
            ("127.0.0.1", 8443, "127.0.0.1:8443", "/")
        );
        assert!(matches!(e.server_name, ServerName::IpAddress(_)) && e.ip.is_some());
        let e = Endpoint::parse("https://dynamodb.us-east-1.amazonaws.com/").unwrap();
        assert_eq!(
            (e.port, e.authority.as_str()),
            (443, "dynamodb.us-east-1.amazonaws.com")
        );
        assert!(matches!(e.server_name, ServerName::DnsName(_)) && e.ip.is_none());
        let e = Endpoint::parse("https://[::1]:9000").unwrap();
        assert_eq!((e.host.as_str(), e.authority.as_str()), ("::1", "[::1]:9000"));
        for bad in ["http://localhost:8000", "https://", "https://h:port", "https://h?x=1"] {
            assert!(Endpoint::parse(bad).is_err(), "{bad} parsed");
        }
    }
}
