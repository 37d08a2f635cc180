//! The article variant (CLAIMS_VARIANT=article): the first invocation as the article's Rust
//! function measured it, and what a first TLS connection in a process pays that a second does
//! not, each part on the same clocks (wall time, the process's CPU, its page faults).
//!
//! The article opened a connection of its own and timed it by hand, with rustls 0.23 and a
//! ClientConfig and roots built before its timer; the SDK's first call followed, on a connection
//! of its own. So the first invocation, in order:
//!   1. ring's first use, apart: a child forked from the process as it is just before the
//!      hand-timed connection uses ring's primitives twice (crypto_uses); the child is the
//!      process's state at that moment, so its first use is what the handshake will pay for the
//!      crypto library's first use, and its second what a handshake after it pays;
//!   2. the hand-timed connection (DNS, TCP, TLS), with a ClientConfig built in Init;
//!   3. the SDK's GetItem, on its own client's connection (the answer's top-level phases);
//!   4. a second hand-timed connection, with a ClientConfig of its own built in Init (so it
//!      resumes no session), the same code now paged in and the crypto library in use;
//!   5. the roots loaded again, the first load being Init's.
//!
//! Later invocations make the GetItem only.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::clock::{ms, process_cpu};
use crate::http::Endpoint;
use crate::tls::{load_roots, negotiated};

/// What the process was charged between two points: wall time, CPU, and the page faults that
/// say whether code or data was paged in (major faults read from storage; minor ones map a page
/// already in memory).
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    /// Wall time, ms.
    pub ms: f64,
    /// The process's CPU, ms.
    pub cpu_ms: f64,
    /// Minor page faults.
    pub minor_faults: i64,
    /// Major page faults.
    pub major_faults: i64,
}

impl Span {
    /// The span's fields with their JSON names.
    pub fn to_json(self) -> Value {
        json!({ "ms": self.ms, "cpuMs": self.cpu_ms, "minorFaults": self.minor_faults, "majorFaults": self.major_faults })
    }
}

/// A span's start.
pub struct Meter {
    wall: Instant,
    cpu: Duration,
    faults: (i64, i64),
}

impl Meter {
    /// Starts a span now.
    pub fn start() -> Meter {
        Meter {
            faults: faults(),
            cpu: process_cpu(),
            wall: Instant::now(),
        }
    }

    /// The span from the start to now.
    pub fn stop(&self) -> Span {
        let (wall, cpu, (minor, major)) = (self.wall.elapsed(), process_cpu(), faults());
        Span {
            ms: ms(wall),
            cpu_ms: ms(cpu - self.cpu),
            minor_faults: minor - self.faults.0,
            major_faults: major - self.faults.1,
        }
    }
}

/// The process's minor and major page faults so far (getrusage, all its threads); zeros where
/// they cannot be read, which Linux never does.
pub fn faults() -> (i64, i64) {
    // SAFETY: rusage is plain data, and getrusage writes one into ru, which lives for the call.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return (0, 0);
    }
    (ru.ru_minflt, ru.ru_majflt)
}

/// One hand-timed connection: DNS (none for an IP literal), TCP and the TLS handshake, each a
/// span, as the article timed its own; the connection is closed after its handshake.
#[derive(Clone, Debug, Default)]
pub struct HandTimed {
    /// The lookup, zero for an IP literal.
    pub dns: Span,
    /// TcpStream::connect.
    pub connect: Span,
    /// TlsConnector::connect: the handshake.
    pub tls: Span,
    /// The key exchange the handshake used, as Go names it.
    pub curve: String,
    /// The handshake resumed a session.
    pub resumed: bool,
    /// What failed, if anything did.
    pub error: String,
}

impl HandTimed {
    /// The connection's figures with their JSON names.
    pub fn to_json(&self) -> Value {
        let mut v = json!({ "dns": self.dns.to_json(), "connect": self.connect.to_json(), "tls": self.tls.to_json(), "didResume": self.resumed });
        for (k, s) in [("curve", &self.curve), ("error", &self.error)] {
            if !s.is_empty() {
                v[k] = s.as_str().into();
            }
        }
        v
    }
}

/// Opens a connection to ep with config and times its steps, giving up at deadline (the
/// invocation's).
pub async fn hand_timed(config: Arc<ClientConfig>, ep: &Endpoint, deadline: Instant) -> HandTimed {
    match tokio::time::timeout_at(deadline.into(), connect(config, ep)).await {
        Ok(h) => h,
        Err(_) => HandTimed {
            error: format!(
                "connecting to {} by hand: the invocation's deadline passed",
                ep.authority
            ),
            ..HandTimed::default()
        },
    }
}

async fn connect(config: Arc<ClientConfig>, ep: &Endpoint) -> HandTimed {
    let mut h = HandTimed::default();
    let addrs: Vec<std::net::SocketAddr> = match ep.ip {
        Some(ip) => vec![std::net::SocketAddr::new(ip, ep.port)],
        None => {
            let m = Meter::start();
            let r = tokio::net::lookup_host((ep.host.as_str(), ep.port)).await;
            h.dns = m.stop();
            match r {
                Ok(a) => a.collect(),
                Err(e) => {
                    h.error = format!("looking up {}: {e}", ep.host);
                    return h;
                }
            }
        }
    };
    let m = Meter::start();
    let mut sock = None;
    for a in &addrs {
        match TcpStream::connect(a).await {
            Ok(s) => {
                (sock, h.error) = (Some(s), String::new());
                break;
            }
            Err(e) => h.error = format!("connecting to {a}: {e}"),
        }
    }
    h.connect = m.stop();
    let Some(sock) = sock else {
        if h.error.is_empty() {
            h.error = format!("no address for {}", ep.host);
        }
        return h;
    };
    let _ = sock.set_nodelay(true);
    let name: ServerName<'static> = ep.server_name.clone();
    let m = Meter::start();
    let shaken = TlsConnector::from(config).connect(name, sock).await;
    h.tls = m.stop();
    match shaken {
        Ok(tls) => {
            let n = negotiated(tls.get_ref().1);
            (h.curve, h.resumed) = (n.curve, n.resumed);
        }
        Err(e) => h.error = format!("TLS handshake with {}: {e}", ep.authority),
    }
    h
}

/// What ring's primitives cost on their first use in this process and on their second, both in a
/// child forked from it: the first use holds the library's own start (its CPU feature detection,
/// the random generator's first read) and the first page-in of its code, the second neither. The
/// child's copy-on-write faults add to both, more to the first, so the difference overstates the
/// first use's own cost rather than understating it.
pub fn crypto_uses() -> Result<(Span, Span), String> {
    let mut fds = [0; 2];
    // SAFETY: pipe writes two descriptors into fds.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(format!("pipe: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: the child runs ring's code, which takes no lock another thread of this process may
    // hold, writes to the pipe and ends with _exit, running nothing the parent set up to run.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        let e = std::io::Error::last_os_error();
        // SAFETY: closing the descriptors pipe made.
        unsafe { (libc::close(fds[0]), libc::close(fds[1])) };
        return Err(format!("fork: {e}"));
    }
    if pid == 0 {
        let spans = [one_crypto_use(), one_crypto_use()];
        let mut buf = Vec::with_capacity(64);
        for s in spans {
            for x in [s.ms, s.cpu_ms, s.minor_faults as f64, s.major_faults as f64] {
                buf.extend_from_slice(&x.to_le_bytes());
            }
        }
        // SAFETY: buf lives for the call; _exit ends the child without the parent's exit handlers.
        unsafe {
            libc::write(fds[1], buf.as_ptr().cast(), buf.len());
            libc::_exit(0);
        }
    }
    // SAFETY: the parent's end of the pipe to write is the child's; the parent reads its own end
    // into buf, which lives for the call, and reaps the child it made.
    let mut buf = [0u8; 64];
    let got = unsafe {
        libc::close(fds[1]);
        let mut got = 0usize;
        while got < buf.len() {
            let n = libc::read(fds[0], buf[got..].as_mut_ptr().cast(), buf.len() - got);
            if n <= 0 {
                break;
            }
            got += n as usize;
        }
        libc::close(fds[0]);
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        got
    };
    if got != buf.len() {
        return Err(format!(
            "the forked child wrote {got} bytes of its figures; want {}",
            buf.len()
        ));
    }
    let x = |i: usize| f64::from_le_bytes(buf[8 * i..8 * i + 8].try_into().unwrap());
    let span = |i: usize| Span {
        ms: x(i),
        cpu_ms: x(i + 1),
        minor_faults: x(i + 2) as i64,
        major_faults: x(i + 3) as i64,
    };
    Ok((span(0), span(4)))
}

/// One use of what a TLS 1.3 client handshake asks of ring, timed: an X25519 key pair and its
/// agreement, SHA-256 over a handshake's worth of bytes, an ECDSA P-256 signature checked (the
/// key made and the message signed outside the span), and an AES-128-GCM record sealed.
fn one_crypto_use() -> Span {
    use ring::{aead, agreement, digest, rand, signature};
    let rng = rand::SystemRandom::new();
    let pkcs8 = signature::EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_ASN1_SIGNING, &rng);
    let signed = pkcs8.as_ref().ok().and_then(|p| {
        let kp =
            signature::EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_ASN1_SIGNING, p.as_ref(), &rng).ok()?;
        let sig = kp.sign(&rng, b"the server's CertificateVerify").ok()?;
        Some((
            signature::KeyPair::public_key(&kp).as_ref().to_vec(),
            sig.as_ref().to_vec(),
        ))
    });
    let m = Meter::start();
    let rng = rand::SystemRandom::new();
    let ours = agreement::EphemeralPrivateKey::generate(&agreement::X25519, &rng).expect("X25519 key");
    let theirs = agreement::EphemeralPrivateKey::generate(&agreement::X25519, &rng).expect("X25519 key");
    let peer = theirs.compute_public_key().expect("X25519 public key");
    let _ = ours.compute_public_key();
    let secret = agreement::agree_ephemeral(
        ours,
        &agreement::UnparsedPublicKey::new(&agreement::X25519, peer.as_ref()),
        |s| s.to_vec(),
    );
    let _ = digest::digest(&digest::SHA256, &[0x16; 4096]);
    if let Some((public, sig)) = &signed {
        let _ = signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_ASN1, public)
            .verify(b"the server's CertificateVerify", sig);
    }
    let key = aead::LessSafeKey::new(
        aead::UnboundKey::new(&aead::AES_128_GCM, &secret.unwrap_or_default()[..16]).expect("AES-128 key"),
    );
    let mut record = vec![0u8; 1024];
    let _ = key.seal_in_place_append_tag(
        aead::Nonce::assume_unique_for_key([0; 12]),
        aead::Aad::empty(),
        &mut record,
    );
    m.stop()
}

/// What the article variant's first invocation measured besides the SDK's call, for the
/// answer's "article".
pub struct Parts {
    /// The code's first page-in from a cold page cache (pagein.rs), or why it was not measured.
    pub page_in: Result<crate::pagein::PageIn, String>,
    /// ring's first use in this process, and its second (crypto_uses), or why the child could
    /// not tell.
    pub crypto: Result<(Span, Span), String>,
    /// The hand-timed connection, as the article's.
    pub first: HandTimed,
    /// A second hand-timed connection, after the SDK's call.
    pub second: HandTimed,
    /// The roots loaded again (the first load is Init's, the answer's "roots").
    pub roots_again: Result<(usize, Span), String>,
}

impl Parts {
    /// The parts with their JSON names.
    pub fn to_json(&self) -> Value {
        let mut v = json!({ "handTimed": self.first.to_json(), "secondHandTimed": self.second.to_json() });
        match &self.crypto {
            Ok((first, second)) => {
                v["cryptoFirstUse"] = first.to_json();
                v["cryptoSecondUse"] = second.to_json();
            }
            Err(e) => v["cryptoError"] = e.as_str().into(),
        }
        match &self.page_in {
            Ok(p) => v["pageIn"] = p.to_json(),
            Err(e) => v["pageInError"] = e.as_str().into(),
        }
        match &self.roots_again {
            Ok((count, s)) => v["rootsAgain"] = json!({ "count": count, "load": s.to_json() }),
            Err(e) => v["rootsError"] = e.as_str().into(),
        }
        v
    }
}

/// Loads the roots again, timed, as Init first loaded them.
pub fn roots_again(ca_file: Option<&str>) -> Result<(usize, Span), String> {
    let m = Meter::start();
    let r = load_roots(ca_file)?;
    Ok((r.load.count, m.stop()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_counts_what_it_spent() {
        let m = Meter::start();
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        let s = m.stop();
        assert!(x != 1 && s.cpu_ms > 0.0 && s.ms > 0.0, "{s:?}");
        assert!(s.minor_faults >= 0 && s.major_faults >= 0, "{s:?}");
    }

    #[test]
    fn the_child_reports_both_uses() {
        let (first, second) = crypto_uses().expect("crypto_uses");
        assert!(
            first.cpu_ms > 0.0 && second.cpu_ms > 0.0,
            "first {first:?}, second {second:?}"
        );
    }
}
