//! TLS as the article's Rust function had it: rustls 0.23 with ring as its crypto provider,
//! trusting the system's roots, which rustls-native-certs loads (honouring SSL_CERT_FILE) when
//! the client is built, in Init.
//!
//! rustls 0.23 verifies a server named by an IP address (the local stand-in,
//! https://127.0.0.1:PORT) against the certificate's iPAddress subjectAltNames itself
//! (rustls-webpki 0.102), and says which key exchange a handshake used and whether it resumed:
//! the function's own IP-address verifier and its reading of the server's handshake messages,
//! which rustls 0.20 needed, are gone.

use std::io;
use std::sync::Arc;
use std::time::Instant;

use rustls::client::ClientConnectionData;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, ConnectionCommon, HandshakeKind, RootCertStore};

use crate::clock::{ms, process_cpu};

/// What loading the roots cost, for the answer's "roots".
#[derive(Clone, Copy, Debug)]
pub struct RootsLoad {
    /// How many certificates were loaded as trust anchors.
    pub count: usize,
    /// The loading's wall time, in milliseconds.
    pub ms: f64,
    /// The CPU the process was charged over it, in milliseconds.
    pub cpu_ms: f64,
}

/// The certificate authorities the function trusts, loaded once in Init and shared by every
/// client built from them.
pub struct Roots {
    store: Arc<RootCertStore>,
    /// What loading them cost.
    pub load: RootsLoad,
}

/// Loads the roots: the PEM file ca_file (CLAIMS_CA_FILE) when set, else the system's, through
/// rustls-native-certs as hyper-rustls's native roots do (SSL_CERT_FILE, else the file
/// openssl-probe finds), each parsed into a trust anchor by RootCertStore::add_parsable_certificates,
/// those that do not parse skipped.
pub fn load_roots(ca_file: Option<&str>) -> Result<Roots, String> {
    let (start, start_cpu) = (Instant::now(), process_cpu());
    let ders: Vec<CertificateDer<'static>> = match ca_file {
        Some(path) => {
            let f = std::fs::File::open(path).map_err(|e| format!("CLAIMS_CA_FILE: {path}: {e}"))?;
            let certs = rustls_pemfile::certs(&mut io::BufReader::new(f))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("CLAIMS_CA_FILE = {path:?}: {e}"))?;
            if certs.is_empty() {
                return Err(format!("CLAIMS_CA_FILE = {path:?}: no PEM certificate in it"));
            }
            certs
        }
        // rustls-native-certs 0.6 (Debian 13's) gives its own DER newtype.
        None => rustls_native_certs::load_native_certs()
            .map_err(|e| format!("loading the system's CA certificates (rustls-native-certs): {e}"))?
            .into_iter()
            .map(|c| CertificateDer::from(c.0))
            .collect(),
    };
    let mut store = RootCertStore::empty();
    let (count, _unparsable) = store.add_parsable_certificates(ders);
    if count == 0 {
        return Err(match ca_file {
            Some(path) => format!("CLAIMS_CA_FILE = {path:?}: no certificate in it parses"),
            None => "no CA certificates found (rustls-native-certs: SSL_CERT_FILE, or the system's bundle)".into(),
        });
    }
    let load = RootsLoad {
        count,
        ms: ms(start.elapsed()),
        cpu_ms: ms(process_cpu() - start_cpu),
    };
    Ok(Roots {
        store: Arc::new(store),
        load,
    })
}

impl Roots {
    /// A client configuration trusting these roots, with ring as the crypto provider and
    /// rustls's safe defaults (its cipher suites, key exchange groups and versions) and its own
    /// session cache, as hyper-rustls builds one. No ALPN: the client speaks HTTP/1.1 only.
    pub fn client_config(&self) -> Arc<ClientConfig> {
        Arc::new(
            ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .expect("ring's provider supports rustls's default protocol versions")
                .with_root_certificates(self.store.clone())
                .with_no_client_auth(),
        )
    }
}

/// What a handshake negotiated, as Go's crypto/tls ConnectionState names it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Negotiated {
    /// The TLS version, as Go's tls.VersionName gives it.
    pub version: String,
    /// The cipher suite's IANA name.
    pub cipher_suite: String,
    /// The key exchange group, named as Go's crypto/tls names a CurveID ("X25519", "CurveP256"),
    /// so that every language's answer names it alike; "" where there was none (a resumed TLS
    /// 1.2 session).
    pub curve: String,
    /// The handshake resumed a session.
    pub resumed: bool,
}

/// What the finished handshake of conn negotiated, as rustls says it.
pub fn negotiated(conn: &ConnectionCommon<ClientConnectionData>) -> Negotiated {
    Negotiated {
        version: conn.protocol_version().map(version_name).unwrap_or_default(),
        cipher_suite: conn
            .negotiated_cipher_suite()
            .map(|s| suite_name(s.suite()))
            .unwrap_or_default(),
        curve: conn
            .negotiated_key_exchange_group()
            .map(|g| group_name(g.name().into()))
            .unwrap_or_default(),
        resumed: conn.handshake_kind() == Some(HandshakeKind::Resumed),
    }
}

/// A named group's name as Go's crypto/tls CurveID.String() gives it.
fn group_name(group: u16) -> String {
    match group {
        0x0017 => "CurveP256".into(),
        0x0018 => "CurveP384".into(),
        0x0019 => "CurveP521".into(),
        0x001d => "X25519".into(),
        g => format!("CurveID({g})"),
    }
}

/// A TLS version's name as Go's tls.VersionName gives it.
pub fn version_name(v: rustls::ProtocolVersion) -> String {
    match v {
        rustls::ProtocolVersion::TLSv1_2 => "TLS 1.2".into(),
        rustls::ProtocolVersion::TLSv1_3 => "TLS 1.3".into(),
        v => format!("{v:?}"),
    }
}

/// A cipher suite's IANA name, as Go's tls.CipherSuiteName gives it: rustls spells TLS 1.3's
/// suites TLS13_..., IANA TLS_....
pub fn suite_name(s: rustls::CipherSuite) -> String {
    let name = format!("{s:?}");
    match name.strip_prefix("TLS13_") {
        Some(rest) => format!("TLS_{rest}"),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_as_go_names_them() {
        assert_eq!(group_name(rustls::NamedGroup::X25519.into()), "X25519");
        assert_eq!(group_name(rustls::NamedGroup::secp256r1.into()), "CurveP256");
        assert_eq!(group_name(rustls::NamedGroup::secp384r1.into()), "CurveP384");
        assert_eq!(group_name(0x11ec), "CurveID(4588)");
    }

    #[test]
    fn names_as_go_gives_them() {
        assert_eq!(
            suite_name(rustls::CipherSuite::TLS13_AES_128_GCM_SHA256),
            "TLS_AES_128_GCM_SHA256"
        );
        assert_eq!(
            suite_name(rustls::CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256),
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
        );
        assert_eq!(version_name(rustls::ProtocolVersion::TLSv1_3), "TLS 1.3");
    }
}
