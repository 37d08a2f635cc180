//! What one call cost on the wire, phase by phase, as results/family/getitem's Call and
//! Connection have it: hyper's connector times the connection's steps (connector.rs), the
//! client the request around hyper's Client (http.rs).

use serde_json::{Map, Value};

/// One call's phases and its connection's account. A phase that did not happen is 0: no DNS for
/// an IP literal, no connect or TLS on a reused connection. When the call is retried, the phases
/// are the last attempt's and attempts counts them all.
#[derive(Clone, Debug, Default)]
pub struct Phases {
    /// DNS resolution (tokio::net::lookup_host).
    pub dns_ms: f64,
    /// The CPU the process was charged over the DNS resolution.
    pub dns_cpu_ms: f64,
    /// The first connect's start to the connect that succeeded.
    pub connect_ms: f64,
    /// The CPU the process was charged over the connect.
    pub connect_cpu_ms: f64,
    /// The TLS handshake: tokio_rustls::TlsConnector::connect, from the ClientConnection's making
    /// until it is no longer handshaking and its last flight is written.
    pub tls_ms: f64,
    /// The CPU the process was charged over the handshake: its cost, whatever throttling
    /// stretched it to.
    pub tls_cpu_ms: f64,
    /// The attempt's start (Client::request, which asks the pool for a connection) to the
    /// response's head.
    pub ttfb_ms: f64,
    /// The attempt went out on a pooled connection: the response's connection is not one the
    /// connector made for it.
    pub reused: bool,
    /// The connection went back to hyper's pool when the response was read.
    pub pooled: bool,
    /// The whole call as its caller saw it: serialising, signing, retries and all.
    pub total_ms: f64,
    /// The HTTP requests the call made.
    pub attempts: u32,
    /// The key exchange the connection negotiated.
    pub curve: String,
    /// The call's error, if it failed.
    pub error: String,
    /// The connection's TLS version.
    pub tls_version: String,
    /// The connection's cipher suite.
    pub cipher_suite: String,
    /// The connection's handshake resumed a session.
    pub did_resume: bool,
    /// The server's address as connected.
    pub remote_addr: String,
    /// The error writing the request, if any.
    pub write_error: String,
}

impl Phases {
    /// Forgets an earlier attempt's phases, keeping the call's count of attempts, so that they
    /// describe one request.
    pub fn new_attempt(&mut self) {
        let attempts = self.attempts + 1;
        *self = Phases {
            attempts,
            ..Phases::default()
        };
    }

    /// The fields of results/family/getitem's Call and Connection, with their JSON names, into m;
    /// empty strings are left out as Go's omitempty leaves them.
    pub fn put(&self, m: &mut Map<String, Value>) {
        let nums = [
            ("dnsMs", self.dns_ms),
            ("dnsCpuMs", self.dns_cpu_ms),
            ("connectMs", self.connect_ms),
            ("connectCpuMs", self.connect_cpu_ms),
            ("tlsMs", self.tls_ms),
            ("tlsCpuMs", self.tls_cpu_ms),
            ("ttfbMs", self.ttfb_ms),
            ("totalMs", self.total_ms),
        ];
        for (k, v) in nums {
            m.insert(k.into(), Value::from(v));
        }
        m.insert("reused".into(), self.reused.into());
        m.insert("pooled".into(), self.pooled.into());
        m.insert("attempts".into(), self.attempts.into());
        m.insert("didResume".into(), self.did_resume.into());
        let strs = [
            ("curve", &self.curve),
            ("error", &self.error),
            ("tlsVersion", &self.tls_version),
            ("cipherSuite", &self.cipher_suite),
            ("remoteAddr", &self.remote_addr),
            ("writeError", &self.write_error),
        ];
        for (k, v) in strs {
            if !v.is_empty() {
                m.insert(k.into(), v.as_str().into());
            }
        }
    }

    /// The phases as a JSON object of their own, as the answer's "warmup".
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        self.put(&mut m);
        Value::Object(m)
    }
}
