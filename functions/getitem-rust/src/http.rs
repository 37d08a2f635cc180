//! The function's HTTP client: HTTP/1.1 with keep-alive over std::net::TcpStream and a
//! rustls::ClientConnection, with a pool of one idle connection, timed around each of its own
//! steps (trace.rs). It is what an SDK's HTTP client is to its calls: the warm-up's connection
//! is the one the handler's first call takes from the pool, when both go through one client.

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustls::{ClientConfig, ClientConnection, ServerName};

use crate::clock::{ms, process_cpu};
use crate::tls::{negotiated, suite_name, version_name, Recorder};
use crate::trace::Phases;

/// Where requests go: an https:// URL's host, port and path.
#[derive(Clone, Debug)]
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
    pub server_name: ServerName,
}

impl Endpoint {
    /// Parses an https:// URL with no query, user or fragment. Plain http is refused: the
    /// function is there to time TLS.
    pub fn parse(url: &str) -> Result<Endpoint, String> {
        let rest = url.strip_prefix("https://").ok_or_else(|| format!("{url:?}: want an https:// URL"))?;
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
            Some(ip) => ServerName::IpAddress(ip),
            None => ServerName::try_from(host).map_err(|_| format!("{url:?}: {host:?} is not a DNS name"))?,
        };
        let bracketed = if matches!(ip, Some(IpAddr::V6(_))) { format!("[{host}]") } else { host.to_string() };
        let authority = if port == 443 { bracketed } else { format!("{bracketed}:{port}") };
        Ok(Endpoint { host: host.into(), port, ip, authority, path: path.into(), server_name })
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

/// A connection: the socket and its TLS session, and what its handshake negotiated.
struct Conn {
    sock: TcpStream,
    tls: ClientConnection,
    remote_addr: String,
    tls_version: String,
    cipher_suite: String,
    curve: String,
    did_resume: bool,
}

/// The client: its TLS configuration (roots, session cache) and its pool. Clones share both.
#[derive(Clone)]
pub struct Client {
    config: Arc<ClientConfig>,
    /// The idle connection, with the authority it is connected to.
    idle: Arc<Mutex<Option<(String, Conn)>>>,
}

impl Client {
    /// A client with config and an empty pool.
    pub fn new(config: Arc<ClientConfig>) -> Client {
        Client { config, idle: Arc::new(Mutex::new(None)) }
    }

    /// Sends one POST request to ep, its headers already signed, and reads the whole response,
    /// timing each step into p (an attempt's phases, fresh). It takes the pool's connection to
    /// ep when there is a live one, else connects; the connection goes back to the pool when the
    /// response leaves it reusable. Every step is bounded by deadline.
    pub fn post(&self, ep: &Endpoint, headers: &[(String, String)], body: &[u8], deadline: Instant, p: &mut Phases) -> Result<Response, Failure> {
        let start = Instant::now();
        let mut conn = match self.take_idle(ep) {
            Some(c) => {
                p.reused = true;
                c
            }
            None => self.dial(ep, deadline, p)?,
        };
        p.remote_addr = conn.remote_addr.clone();
        p.tls_version = conn.tls_version.clone();
        p.cipher_suite = conn.cipher_suite.clone();
        p.curve = conn.curve.clone();
        p.did_resume = conn.did_resume;
        set_timeouts(&conn.sock, deadline)?;

        let mut req = format!("POST {} HTTP/1.1\r\n", ep.path);
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let mut req = req.into_bytes();
        req.extend_from_slice(body);

        let mut stream = rustls::Stream::new(&mut conn.tls, &mut conn.sock);
        if let Err(e) = stream.write_all(&req).and_then(|()| stream.flush()) {
            p.write_error = e.to_string();
            let msg = format!("writing the request to {}: {}", ep.authority, describe(&e));
            return Err(if p.reused { Failure::Stale(msg) } else { Failure::Transient(msg) });
        }
        let read = read_response(&mut stream);
        if let Some(t) = read.first_byte {
            p.ttfb_ms = ms(t - start);
        }
        match read.result {
            Ok((resp, keep_alive)) => {
                if keep_alive {
                    *self.idle.lock().unwrap() = Some((ep.authority.clone(), conn));
                    p.pooled = true;
                }
                Ok(resp)
            }
            Err(e) => {
                let msg = format!("reading the response from {}: {}", ep.authority, describe(&e));
                Err(match (p.reused, read.first_byte, e.kind()) {
                    (true, None, _) => Failure::Stale(msg),
                    (_, _, io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => Failure::Final(msg),
                    _ => Failure::Transient(msg),
                })
            }
        }
    }

    /// The pool's connection to ep, if it is still open: a connection the server closed while
    /// it sat idle is dropped, as an HTTP client's pool notices the close.
    fn take_idle(&self, ep: &Endpoint) -> Option<Conn> {
        let mut idle = self.idle.lock().unwrap();
        match idle.take() {
            Some((authority, mut c)) if authority == ep.authority => alive(&mut c).then_some(c),
            other => {
                *idle = other;
                None
            }
        }
    }

    /// Connects to ep: DNS (none for an IP literal), TCP to each address in turn until one
    /// answers, and the TLS handshake, each timed into p.
    fn dial(&self, ep: &Endpoint, deadline: Instant, p: &mut Phases) -> Result<Conn, Failure> {
        let addrs: Vec<SocketAddr> = match ep.ip {
            Some(ip) => vec![SocketAddr::new(ip, ep.port)],
            None => {
                let (t, cpu) = (Instant::now(), process_cpu());
                let r = (ep.host.as_str(), ep.port).to_socket_addrs();
                p.dns_ms = ms(t.elapsed());
                p.dns_cpu_ms = ms(process_cpu() - cpu);
                r.map_err(|e| Failure::Transient(format!("looking up {}: {e}", ep.host)))?.collect()
            }
        };
        let (t, cpu) = (Instant::now(), process_cpu());
        let mut sock = None;
        let mut last = format!("no address for {}", ep.host);
        for addr in &addrs {
            match TcpStream::connect_timeout(addr, remaining(deadline)?) {
                Ok(s) => {
                    sock = Some(s);
                    break;
                }
                Err(e) => last = format!("connecting to {addr}: {}", describe(&e)),
            }
        }
        let mut sock = sock.ok_or(Failure::Transient(last))?;
        p.connect_ms = ms(t.elapsed());
        p.connect_cpu_ms = ms(process_cpu() - cpu);
        let remote_addr = sock.peer_addr().map(|a| a.to_string()).unwrap_or_default();
        // Requests are written whole, in one write: Nagle would only hold back a last segment.
        let _ = sock.set_nodelay(true);
        set_timeouts(&sock, deadline)?;

        let (t, cpu) = (Instant::now(), process_cpu());
        let handshake = |sock: &mut TcpStream| -> Result<(ClientConnection, Vec<u8>), io::Error> {
            let mut tls = ClientConnection::new(self.config.clone(), ep.server_name.clone())
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
            let mut rec = Recorder { sock, seen: Vec::new() };
            while tls.is_handshaking() {
                tls.complete_io(&mut rec)?;
            }
            // The handshake's last flight (the client's Finished): Go's handshake has written
            // it when it reports done, and so has this one.
            while tls.wants_write() {
                tls.write_tls(&mut rec)?;
            }
            Ok((tls, rec.seen))
        };
        let shaken = handshake(&mut sock);
        p.tls_ms = ms(t.elapsed());
        p.tls_cpu_ms = ms(process_cpu() - cpu);
        let (tls, seen) = shaken.map_err(|e| {
            let msg = format!("TLS handshake with {}: {}", ep.authority, describe(&e));
            match e.kind() {
                // A certificate that does not verify, or a protocol error: again is the same.
                io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput => Failure::Final(msg),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Failure::Final(msg),
                _ => Failure::Transient(msg),
            }
        })?;
        let version = tls.protocol_version();
        let n = negotiated(&seen, version == Some(rustls::ProtocolVersion::TLSv1_3));
        Ok(Conn {
            remote_addr,
            tls_version: version.map(version_name).unwrap_or_default(),
            cipher_suite: tls.negotiated_cipher_suite().map(|s| suite_name(s.suite())).unwrap_or_default(),
            curve: n.curve,
            did_resume: n.resumed,
            sock,
            tls,
        })
    }
}

/// Whether an idle connection is still open: whatever the server sent meanwhile (a TLS 1.3
/// session ticket) is taken in, and a close, an alert or stray data means it is not.
fn alive(c: &mut Conn) -> bool {
    if c.sock.set_nonblocking(true).is_err() {
        return false;
    }
    let open = loop {
        match c.tls.read_tls(&mut c.sock) {
            Ok(0) => break false,
            Ok(_) => match c.tls.process_new_packets() {
                Ok(st) if st.peer_has_closed() || st.plaintext_bytes_to_read() > 0 => break false,
                Ok(_) => continue,
                Err(_) => break false,
            },
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break false,
        }
    };
    c.sock.set_nonblocking(false).is_ok() && open
}

/// The time left before deadline, or the failure of having none.
fn remaining(deadline: Instant) -> Result<Duration, Failure> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(Failure::Final("timed out: the call's deadline passed".into()));
    }
    Ok(left)
}

/// Bounds the socket's reads and writes by deadline.
fn set_timeouts(sock: &TcpStream, deadline: Instant) -> Result<(), Failure> {
    let left = remaining(deadline)?;
    sock.set_read_timeout(Some(left))
        .and_then(|()| sock.set_write_timeout(Some(left)))
        .map_err(|e| Failure::Transient(format!("setting the socket's timeouts: {e}")))
}

/// An I/O error as the answer says it: a socket timeout (which std reports as WouldBlock) as a
/// timeout.
fn describe(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => format!("timed out (the call's deadline): {e}"),
        _ => e.to_string(),
    }
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
    let mut out = ReadOutcome { result: Err(io::ErrorKind::UnexpectedEof.into()), first_byte: None };
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
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the connection closed before a response"));
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let status: u16 = parts.next().and_then(|s| s.parse().ok()).ok_or_else(|| bad(format!("status line {status_line:?}")))?;
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
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the connection closed inside a chunked body"));
            }
        }
    } else if let Some(n) = length {
        while buf.len() < head_end + n {
            if !more(&mut buf, &mut eof)? {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the connection closed inside the body"));
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
        let Some(eol) = find(&data[at..], b"\r\n") else { return Ok(None) };
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
        assert_eq!(read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"), (200, "{}".into(), true));
        assert_eq!(read("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nConnection: close\r\n\r\n{}"), (200, "{}".into(), false));
        assert_eq!(read("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}extra"), (200, "{}".into(), false));
        assert_eq!(
            read("HTTP/1.1 400 Bad\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n"),
            (400, "abcde".into(), true)
        );
        assert_eq!(read("HTTP/1.0 200 OK\r\n\r\nto the end"), (200, "to the end".into(), false));
        assert_eq!(read("HTTP/1.1 204 No Content\r\n\r\n"), (204, "".into(), true));
    }

    #[test]
    fn truncated_responses_fail() {
        for s in ["", "HTTP/1.1 200 OK\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n{}", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"] {
            let r = read_response(&mut s.as_bytes());
            assert!(r.result.is_err(), "{s:?} read as a response");
            assert_eq!(r.first_byte.is_some(), !s.is_empty(), "{s:?}");
        }
    }

    #[test]
    fn endpoints() {
        let e = Endpoint::parse("https://127.0.0.1:8443").unwrap();
        assert_eq!((e.host.as_str(), e.port, e.authority.as_str(), e.path.as_str()), ("127.0.0.1", 8443, "127.0.0.1:8443", "/"));
        assert!(matches!(e.server_name, ServerName::IpAddress(_)) && e.ip.is_some());
        let e = Endpoint::parse("https://dynamodb.us-east-1.amazonaws.com/").unwrap();
        assert_eq!((e.port, e.authority.as_str()), (443, "dynamodb.us-east-1.amazonaws.com"));
        assert!(matches!(e.server_name, ServerName::DnsName(_)) && e.ip.is_none());
        let e = Endpoint::parse("https://[::1]:9000").unwrap();
        assert_eq!((e.host.as_str(), e.authority.as_str()), ("::1", "[::1]:9000"));
        for bad in ["http://localhost:8000", "https://", "https://h:port", "https://h?x=1"] {
            assert!(Endpoint::parse(bad).is_err(), "{bad} parsed");
        }
    }
}
