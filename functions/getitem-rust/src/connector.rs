//! hyper's connector: what hyper-util's legacy Client (hyper 1) calls when its pool has no idle
//! connection for a request, as hyper-rustls's HttpsConnector is to the article's aws-sdk-rust. It makes the
//! connection the way hyper-rustls does (DNS, tokio's TcpStream, tokio-rustls's handshake) and
//! times each step into the tracer of the request that made hyper call it (Dial, a tokio
//! task-local the request's future runs in), so that the phases are those of hyper's own
//! connection. Every connection says who it is (ConnInfo, hyper's Connected::extra), which
//! hyper puts into each response's extensions: the response says which connection it came over.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use hyper::Uri;
use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use crate::clock::{ms, process_cpu};
use crate::tls::negotiated;

tokio::task_local! {
    /// The tracer of the request whose future is running: the connector, called by hyper from
    /// within that future, times its steps into it.
    pub static DIAL: Arc<Mutex<Dial>>;
}

/// What the connector did for one request: the steps of each connection it made (the last one's
/// kept), and the ids of the connections it made.
#[derive(Clone, Debug, Default)]
pub struct Dial {
    /// DNS resolution (tokio::net::lookup_host), ms; 0 for an IP literal.
    pub dns_ms: f64,
    /// The CPU the process was charged over it, ms.
    pub dns_cpu_ms: f64,
    /// The first TcpStream::connect's start to the one that succeeded, ms.
    pub connect_ms: f64,
    /// The CPU the process was charged over it, ms.
    pub connect_cpu_ms: f64,
    /// TlsConnector::connect, from the ClientConnection's making to the handshake's end, ms.
    pub tls_ms: f64,
    /// The CPU the process was charged over it, ms.
    pub tls_cpu_ms: f64,
    /// The ids of the connections made for the request.
    pub made: Vec<u64>,
}

/// Which connection a response came over and what its handshake negotiated: hyper's
/// Connected::extra, set into every response's extensions.
#[derive(Clone, Debug)]
pub struct ConnInfo {
    /// The connection's number in this process, from 1.
    pub id: u64,
    /// The server's address as connected.
    pub remote_addr: String,
    /// The TLS version, as Go names it.
    pub tls_version: String,
    /// The cipher suite's IANA name.
    pub cipher_suite: String,
    /// The key exchange group, as Go names a CurveID.
    pub curve: String,
    /// The handshake resumed a session.
    pub did_resume: bool,
    /// What the connection has seen since its handshake.
    pub state: Arc<ConnState>,
}

/// A connection's life after its handshake, as its reads and writes see it.
#[derive(Debug, Default)]
pub struct ConnState {
    /// It read the end of the stream or an error, failed a write, was shut down or dropped: hyper
    /// cannot give it another request.
    pub closed: AtomicBool,
}

/// The last error writing to any of one client's connections, which the client clears before
/// each request and takes after it: hyper writes in its connection's own task and reports a
/// failed write as the request's error without its cause, and a client makes one request at a
/// time. Each client has its own; its connector hands it to every connection it makes.
pub type WriteError = Arc<Mutex<String>>;

/// The connector: the TLS configuration (roots, session cache) of the client it belongs to, and
/// that client's WriteError.
#[derive(Clone)]
pub struct Connector {
    config: Arc<ClientConfig>,
    write_error: WriteError,
}

impl Connector {
    /// A connector with config, whose connections report a failed write into write_error.
    pub fn new(config: Arc<ClientConfig>, write_error: WriteError) -> Connector {
        Connector { config, write_error }
    }
}

/// The numbers connections are given.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

type Boxed = Box<dyn std::error::Error + Send + Sync>;

impl tower_service::Service<Uri> for Connector {
    // hyper 1 reads and writes through its own traits; TokioIo adapts tokio's and passes
    // Connection through.
    type Response = TokioIo<Conn>;
    type Error = Boxed;
    type Future = Pin<Box<dyn Future<Output = Result<TokioIo<Conn>, Boxed>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Boxed>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        // hyper calls this from the request's own future, in DIAL's scope; a connection hyper
        // finishes in the background after its request went elsewhere times into nothing.
        let dial = DIAL.try_with(Arc::clone).ok();
        let config = self.config.clone();
        let write_error = self.write_error.clone();
        Box::pin(async move {
            connect(config, uri, dial, write_error)
                .await
                .map(TokioIo::new)
                .map_err(Boxed::from)
        })
    }
}

/// Makes a connection to uri's host and port: DNS (none for an IP literal), TCP to each address
/// in turn until one answers, and the TLS handshake, each timed into dial.
async fn connect(
    config: Arc<ClientConfig>,
    uri: Uri,
    dial: Option<Arc<Mutex<Dial>>>,
    write_error: WriteError,
) -> io::Result<Conn> {
    let record = |f: &dyn Fn(&mut Dial)| {
        if let Some(d) = &dial {
            f(&mut d.lock().unwrap());
        }
    };
    let host = uri
        .host()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = uri.port_u16().unwrap_or(443);
    let (addrs, name): (Vec<SocketAddr>, ServerName<'static>) = match host.parse::<std::net::IpAddr>() {
        Ok(ip) => (vec![SocketAddr::new(ip, port)], ServerName::IpAddress(ip.into())),
        Err(_) => {
            let name = ServerName::try_from(host.clone())
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, format!("{host:?} is not a DNS name")))?;
            let (t, cpu) = (Instant::now(), process_cpu());
            let r = tokio::net::lookup_host((host.as_str(), port)).await;
            let (d, c) = (ms(t.elapsed()), ms(process_cpu() - cpu));
            record(&|p| (p.dns_ms, p.dns_cpu_ms) = (d, c));
            let addrs = r
                .map_err(|e| io::Error::new(e.kind(), format!("looking up {host}: {e}")))?
                .collect();
            (addrs, name)
        }
    };

    let (t, cpu) = (Instant::now(), process_cpu());
    let mut sock = None;
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("no address for {host}"));
    for addr in &addrs {
        match TcpStream::connect(addr).await {
            Ok(s) => {
                sock = Some(s);
                break;
            }
            Err(e) => last = io::Error::new(e.kind(), format!("connecting to {addr}: {e}")),
        }
    }
    let sock = sock.ok_or(last)?;
    let (d, c) = (ms(t.elapsed()), ms(process_cpu() - cpu));
    record(&|p| (p.connect_ms, p.connect_cpu_ms) = (d, c));
    let remote_addr = sock.peer_addr().map(|a| a.to_string()).unwrap_or_default();
    // hyper writes a request's head and body together: Nagle would only hold back a last segment.
    let _ = sock.set_nodelay(true);

    let (t, cpu) = (Instant::now(), process_cpu());
    let shaken = TlsConnector::from(config).connect(name, sock).await;
    let (d, c) = (ms(t.elapsed()), ms(process_cpu() - cpu));
    record(&|p| (p.tls_ms, p.tls_cpu_ms) = (d, c));
    let tls = shaken.map_err(|e| io::Error::new(e.kind(), format!("TLS handshake with {host}:{port}: {e}")))?;

    let n = negotiated(tls.get_ref().1);
    let info = ConnInfo {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        remote_addr,
        tls_version: n.version,
        cipher_suite: n.cipher_suite,
        curve: n.curve,
        did_resume: n.resumed,
        state: Arc::default(),
    };
    record(&|p| p.made.push(info.id));
    Ok(Conn { tls, info, write_error })
}

/// A connection as hyper holds it: the TLS stream, and who it is.
pub struct Conn {
    tls: TlsStream<TcpStream>,
    info: ConnInfo,
    write_error: WriteError,
}

impl Connection for Conn {
    fn connected(&self) -> Connected {
        Connected::new().extra(self.info.clone())
    }
}

impl Conn {
    fn close(&self) {
        self.info.state.closed.store(true, Ordering::Relaxed);
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.close();
    }
}

impl AsyncRead for Conn {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.tls).poll_read(cx, buf);
        match &r {
            Poll::Ready(Ok(())) if buf.filled().len() == before && buf.remaining() > 0 => self.close(),
            Poll::Ready(Err(_)) => self.close(),
            _ => {}
        }
        r
    }
}

impl AsyncWrite for Conn {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.tls).poll_write(cx, buf);
        if let Poll::Ready(Err(e)) = &r {
            *self.write_error.lock().unwrap() = e.to_string();
            self.close();
        }
        r
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let r = Pin::new(&mut self.tls).poll_flush(cx);
        if let Poll::Ready(Err(e)) = &r {
            *self.write_error.lock().unwrap() = e.to_string();
            self.close();
        }
        r
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.close();
        Pin::new(&mut self.tls).poll_shutdown(cx)
    }
}
