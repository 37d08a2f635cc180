//! TLS as the article's Rust function had it: rustls with ring, trusting the system's roots,
//! which rustls-native-certs loads (honouring SSL_CERT_FILE) when the client is built, in Init.
//!
//! Two things rustls 0.20 does not do are done here. Its certificate verifier refuses a server
//! named by an IP address (UnsupportedNameType), and webpki 0.22 matches DNS names only, so a
//! server named by an IP address (the local stand-in, https://127.0.0.1:PORT) is verified by
//! webpki's own chain verification with rustls's algorithms, then by the certificate's iPAddress
//! subjectAltNames, read here; a DNS name, as on Lambda, goes to rustls's own WebPkiVerifier
//! untouched. And rustls 0.20 does not say which key exchange a handshake used, or whether it
//! resumed: both are read from the server's handshake messages as they come off the socket
//! (connector.rs keeps a copy of them).

use std::io;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use rustls::client::{ServerCertVerified, ServerCertVerifier, WebPkiVerifier};
use rustls::{Certificate, ClientConfig, Error, OwnedTrustAnchor, RootCertStore, ServerName};

use crate::clock::{ms, process_cpu};

/// A certificate authority the function trusts, as webpki takes it, owned.
struct Anchor {
    subject: Vec<u8>,
    spki: Vec<u8>,
    name_constraints: Option<Vec<u8>>,
}

impl Anchor {
    fn trust_anchor(&self) -> webpki::TrustAnchor<'_> {
        webpki::TrustAnchor { subject: &self.subject, spki: &self.spki, name_constraints: self.name_constraints.as_deref() }
    }
}

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
    verifier: Arc<Verifier>,
    /// What loading them cost.
    pub load: RootsLoad,
}

/// Loads the roots: the PEM file ca_file (CLAIMS_CA_FILE) when set, else the system's, through
/// rustls-native-certs as hyper-rustls's native roots do (SSL_CERT_FILE, else the file
/// openssl-probe finds), each parsed into a trust anchor as RootCertStore::add_parsable_certificates
/// does, those that do not parse skipped.
pub fn load_roots(ca_file: Option<&str>) -> Result<Roots, String> {
    let (start, start_cpu) = (Instant::now(), process_cpu());
    let ders: Vec<Vec<u8>> = match ca_file {
        Some(path) => {
            let f = std::fs::File::open(path).map_err(|e| format!("CLAIMS_CA_FILE: {path}: {e}"))?;
            let certs = rustls_pemfile::certs(&mut io::BufReader::new(f)).map_err(|e| format!("CLAIMS_CA_FILE = {path:?}: {e}"))?;
            if certs.is_empty() {
                return Err(format!("CLAIMS_CA_FILE = {path:?}: no PEM certificate in it"));
            }
            certs
        }
        None => rustls_native_certs::load_native_certs()
            .map_err(|e| format!("loading the system's CA certificates (rustls-native-certs): {e}"))?
            .into_iter()
            .map(|c| c.0)
            .collect(),
    };
    let mut anchors = Vec::with_capacity(ders.len());
    for der in &ders {
        if let Ok(ta) = webpki::TrustAnchor::try_from_cert_der(der) {
            anchors.push(Anchor {
                subject: ta.subject.to_vec(),
                spki: ta.spki.to_vec(),
                name_constraints: ta.name_constraints.map(<[u8]>::to_vec),
            });
        }
    }
    if anchors.is_empty() {
        return Err(match ca_file {
            Some(path) => format!("CLAIMS_CA_FILE = {path:?}: no certificate in it parses"),
            None => "no CA certificates found (rustls-native-certs: SSL_CERT_FILE, or the system's bundle)".into(),
        });
    }
    let mut store = RootCertStore::empty();
    store.add_server_trust_anchors(anchors.iter().map(|a| {
        OwnedTrustAnchor::from_subject_spki_name_constraints(a.subject.clone(), a.spki.clone(), a.name_constraints.clone())
    }));
    let count = anchors.len();
    let verifier = Arc::new(Verifier { webpki: WebPkiVerifier::new(store, None), anchors });
    let load = RootsLoad { count, ms: ms(start.elapsed()), cpu_ms: ms(process_cpu() - start_cpu) };
    Ok(Roots { verifier, load })
}

impl Roots {
    /// A client configuration trusting these roots, with rustls's safe defaults (its cipher
    /// suites, key exchange groups and versions) and its own session cache, as hyper-rustls
    /// builds one. No ALPN: the client speaks HTTP/1.1 only.
    pub fn client_config(&self) -> Arc<ClientConfig> {
        Arc::new(
            ClientConfig::builder()
                .with_safe_defaults()
                .with_custom_certificate_verifier(self.verifier.clone())
                .with_no_client_auth(),
        )
    }
}

/// The server certificate verifier: rustls's own for a DNS name, and for an IP address the same
/// chain verification by webpki followed by a match of the address against the certificate's
/// iPAddress names (which webpki 0.22 cannot do).
struct Verifier {
    webpki: WebPkiVerifier,
    anchors: Vec<Anchor>,
}

/// The signature algorithms rustls 0.20's WebPkiVerifier accepts in a certificate chain.
static SUPPORTED_SIG_ALGS: &[&webpki::SignatureAlgorithm] = &[
    &webpki::ECDSA_P256_SHA256,
    &webpki::ECDSA_P256_SHA384,
    &webpki::ECDSA_P384_SHA256,
    &webpki::ECDSA_P384_SHA384,
    &webpki::ED25519,
    &webpki::RSA_PSS_2048_8192_SHA256_LEGACY_KEY,
    &webpki::RSA_PSS_2048_8192_SHA384_LEGACY_KEY,
    &webpki::RSA_PSS_2048_8192_SHA512_LEGACY_KEY,
    &webpki::RSA_PKCS1_2048_8192_SHA256,
    &webpki::RSA_PKCS1_2048_8192_SHA384,
    &webpki::RSA_PKCS1_2048_8192_SHA512,
    &webpki::RSA_PKCS1_3072_8192_SHA384,
];

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &Certificate,
        intermediates: &[Certificate],
        server_name: &ServerName,
        scts: &mut dyn Iterator<Item = &[u8]>,
        ocsp_response: &[u8],
        now: SystemTime,
    ) -> Result<ServerCertVerified, Error> {
        let ip = match server_name {
            ServerName::IpAddress(ip) => *ip,
            _ => return self.webpki.verify_server_cert(end_entity, intermediates, server_name, scts, ocsp_response, now),
        };
        let cert = webpki::EndEntityCert::try_from(end_entity.0.as_slice()).map_err(pki_error)?;
        let chain: Vec<&[u8]> = intermediates.iter().map(|c| c.0.as_slice()).collect();
        let anchors: Vec<webpki::TrustAnchor> = self.anchors.iter().map(Anchor::trust_anchor).collect();
        let time = webpki::Time::try_from(now).map_err(|_| Error::FailedToGetCurrentTime)?;
        cert.verify_is_valid_tls_server_cert(SUPPORTED_SIG_ALGS, &webpki::TlsServerTrustAnchors(&anchors), &chain, time)
            .map_err(pki_error)?;
        match ip_names(&end_entity.0) {
            Some(ips) if ips.contains(&ip) => Ok(ServerCertVerified::assertion()),
            Some(_) => Err(Error::InvalidCertificateData(format!("invalid peer certificate: not valid for IP address {ip}"))),
            None => Err(Error::InvalidCertificateEncoding),
        }
    }
}

/// A webpki error as rustls's WebPkiVerifier reports it.
fn pki_error(e: webpki::Error) -> Error {
    use webpki::Error::*;
    match e {
        BadDer | BadDerTime => Error::InvalidCertificateEncoding,
        InvalidSignatureForPublicKey => Error::InvalidCertificateSignature,
        UnsupportedSignatureAlgorithm | UnsupportedSignatureAlgorithmForPublicKey => Error::InvalidCertificateSignatureType,
        e => Error::InvalidCertificateData(format!("invalid peer certificate: {e}")),
    }
}

/// One DER element: its tag, its contents and what follows it; None where der is not DER.
fn tlv(der: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = der.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (first as usize, rest)
    } else {
        let n = (first & 0x7f) as usize;
        if n == 0 || n > 3 || rest.len() < n {
            return None;
        }
        (rest[..n].iter().fold(0usize, |acc, &b| acc << 8 | b as usize), &rest[n..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

/// The elements of a DER sequence's contents; None where one is not DER.
fn elements(mut der: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    let mut out = Vec::new();
    while !der.is_empty() {
        let (tag, value, rest) = tlv(der)?;
        out.push((tag, value));
        der = rest;
    }
    Some(out)
}

/// The iPAddress entries of a certificate's subjectAltName extension (RFC 5280 4.2.1.6): none
/// where it has no such extension, None where the certificate is not DER.
fn ip_names(cert: &[u8]) -> Option<Vec<IpAddr>> {
    const SEQUENCE: u8 = 0x30;
    const EXTENSIONS: u8 = 0xa3; // [3] EXPLICIT, in TBSCertificate
    const SUBJECT_ALT_NAME: &[u8] = &[0x55, 0x1d, 0x11]; // 2.5.29.17
    const IP_ADDRESS: u8 = 0x87; // [7] IMPLICIT OCTET STRING, in GeneralName
    let (tag, certificate, _) = tlv(cert)?;
    if tag != SEQUENCE {
        return None;
    }
    let (tag, tbs, _) = tlv(certificate)?;
    if tag != SEQUENCE {
        return None;
    }
    let mut ips = Vec::new();
    for (tag, value) in elements(tbs)? {
        if tag != EXTENSIONS {
            continue;
        }
        let (_, extensions, _) = tlv(value)?;
        for (_, extension) in elements(extensions)? {
            let fields = elements(extension)?;
            if fields.first().map(|f| f.1) != Some(SUBJECT_ALT_NAME) {
                continue;
            }
            // extnID, critical (a BOOLEAN, absent when false), extnValue (an OCTET STRING
            // holding GeneralNames).
            let (_, names, _) = tlv(fields.last()?.1)?;
            for (tag, name) in elements(names)? {
                match (tag, name.len()) {
                    (IP_ADDRESS, 4) => ips.push(IpAddr::from(<[u8; 4]>::try_from(name).ok()?)),
                    (IP_ADDRESS, 16) => ips.push(IpAddr::from(<[u8; 16]>::try_from(name).ok()?)),
                    _ => {}
                }
            }
        }
    }
    Some(ips)
}

/// What a handshake negotiated beyond what rustls 0.20 says: the key exchange and resumption.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Negotiated {
    /// The key exchange group, named as Go's crypto/tls names a CurveID ("X25519", "CurveP256"),
    /// so that every language's answer names it alike; "" where the server's messages did not
    /// say.
    pub curve: String,
    /// The handshake resumed a session: TLS 1.3's ServerHello chose a pre-shared key, or a TLS
    /// 1.2 server skipped its certificate.
    pub resumed: bool,
}

/// Reads the server's plaintext handshake messages out of the bytes it sent during a
/// handshake (seen), for TLS 1.3 when tls13 (whose records after the ServerHello are encrypted,
/// with another content type) or TLS 1.2 (whose records after ChangeCipherSpec are encrypted
/// under the same one).
pub fn negotiated(seen: &[u8], tls13: bool) -> Negotiated {
    const CHANGE_CIPHER_SPEC: u8 = 20;
    const HANDSHAKE: u8 = 22;
    // The handshake messages, joined across records.
    let mut hs = Vec::new();
    let mut rest = seen;
    while rest.len() >= 5 {
        let len = u16::from_be_bytes([rest[3], rest[4]]) as usize;
        if rest.len() < 5 + len {
            break;
        }
        let (kind, body) = (rest[0], &rest[5..5 + len]);
        rest = &rest[5 + len..];
        match kind {
            HANDSHAKE => hs.extend_from_slice(body),
            CHANGE_CIPHER_SPEC if !tls13 => break,
            _ => {}
        }
    }
    let mut n = Negotiated::default();
    let mut certificate = false;
    let mut rest = hs.as_slice();
    while rest.len() >= 4 {
        let len = u32::from_be_bytes([0, rest[1], rest[2], rest[3]]) as usize;
        if rest.len() < 4 + len {
            break;
        }
        let (kind, body) = (rest[0], &rest[4..4 + len]);
        rest = &rest[4 + len..];
        match kind {
            2 => server_hello(body, &mut n),
            11 => certificate = true,
            12 if body.len() >= 3 && body[0] == 3 => n.curve = group_name(u16::from_be_bytes([body[1], body[2]])),
            _ => {}
        }
    }
    if !tls13 {
        n.resumed = !certificate;
    }
    n
}

/// The random of a HelloRetryRequest, which TLS 1.3 sends as a ServerHello (RFC 8446 4.1.3).
const HELLO_RETRY_REQUEST: [u8; 32] = [
    0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91, 0xc2, 0xa2, 0x11, 0x16, 0x7a,
    0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
];

/// Reads a ServerHello's key share and pre-shared key extensions into n; a HelloRetryRequest
/// is skipped (the ServerHello after it says what was negotiated).
fn server_hello(body: &[u8], n: &mut Negotiated) {
    const PRE_SHARED_KEY: u16 = 41;
    const KEY_SHARE: u16 = 51;
    let Some(random) = body.get(2..34) else { return };
    if random == HELLO_RETRY_REQUEST {
        return;
    }
    let Some(&sid_len) = body.get(34) else { return };
    // session id, cipher suite (2), compression method (1), extensions' length (2)
    let at = 35 + sid_len as usize + 3;
    let Some(mut exts) = body.get(at + 2..) else { return };
    while exts.len() >= 4 {
        let kind = u16::from_be_bytes([exts[0], exts[1]]);
        let len = u16::from_be_bytes([exts[2], exts[3]]) as usize;
        let Some(data) = exts.get(4..4 + len) else { return };
        exts = &exts[4 + len..];
        match kind {
            KEY_SHARE if data.len() >= 2 => n.curve = group_name(u16::from_be_bytes([data[0], data[1]])),
            PRE_SHARED_KEY => n.resumed = true,
            _ => {}
        }
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

    /// A record of content type kind holding body.
    fn record(kind: u8, body: &[u8]) -> Vec<u8> {
        let mut r = vec![kind, 3, 3];
        r.extend_from_slice(&(body.len() as u16).to_be_bytes());
        r.extend_from_slice(body);
        r
    }

    /// A handshake message of type kind holding body.
    fn message(kind: u8, body: &[u8]) -> Vec<u8> {
        let mut m = vec![kind];
        m.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
        m.extend_from_slice(body);
        m
    }

    /// A ServerHello with random and extensions (type, data).
    fn server_hello_with(random: [u8; 32], exts: &[(u16, Vec<u8>)]) -> Vec<u8> {
        let mut b = vec![3, 3];
        b.extend_from_slice(&random);
        b.extend_from_slice(&[0, 0x13, 0x01, 0]); // empty session id, TLS_AES_128_GCM_SHA256, null
        let mut e = Vec::new();
        for (kind, data) in exts {
            e.extend_from_slice(&kind.to_be_bytes());
            e.extend_from_slice(&(data.len() as u16).to_be_bytes());
            e.extend_from_slice(data);
        }
        b.extend_from_slice(&(e.len() as u16).to_be_bytes());
        b.extend_from_slice(&e);
        message(2, &b)
    }

    #[test]
    fn tls13_key_share_and_resumption() {
        let hello = server_hello_with([7; 32], &[(43, vec![3, 4]), (51, vec![0, 0x1d, 0, 2, 9, 9])]);
        let seen = [record(22, &hello), record(20, &[1]), record(23, &[0xaa; 40])].concat();
        assert_eq!(negotiated(&seen, true), Negotiated { curve: "X25519".into(), resumed: false });

        let resumed = server_hello_with([7; 32], &[(51, vec![0, 0x17, 0, 1, 9]), (41, vec![0, 0])]);
        assert_eq!(negotiated(&record(22, &resumed), true), Negotiated { curve: "CurveP256".into(), resumed: true });
    }

    #[test]
    fn tls13_after_a_hello_retry_request() {
        let hrr = server_hello_with(HELLO_RETRY_REQUEST, &[(51, vec![0, 0x18])]);
        let hello = server_hello_with([7; 32], &[(51, vec![0, 0x18, 0, 1, 9])]);
        let seen = [record(22, &hrr), record(20, &[1]), record(22, &hello)].concat();
        assert_eq!(negotiated(&seen, true).curve, "CurveP384");
    }

    #[test]
    fn tls12_full_and_abbreviated() {
        let hello = server_hello_with([7; 32], &[]);
        let cert = message(11, &[0, 0, 0]);
        let ske = message(12, &[3, 0, 0x1d, 32]);
        // The messages split across records, as a server may send them.
        let hs = [hello.clone(), cert, ske].concat();
        let (a, b) = hs.split_at(10);
        let seen = [record(22, a), record(22, b), record(20, &[1]), record(22, &[0xbb; 40])].concat();
        assert_eq!(negotiated(&seen, false), Negotiated { curve: "X25519".into(), resumed: false });

        let seen = [record(22, &hello), record(20, &[1]), record(22, &message(11, &[0, 0, 0]))].concat();
        assert_eq!(negotiated(&seen, false), Negotiated { curve: "".into(), resumed: true });
    }

    #[test]
    fn truncated_input_is_no_panic() {
        let hello = server_hello_with([7; 32], &[(51, vec![0, 0x1d, 0, 2, 9, 9])]);
        let seen = record(22, &hello);
        for i in 0..seen.len() {
            let _ = negotiated(&seen[..i], true);
        }
        for i in 0..hello.len() {
            let mut n = Negotiated::default();
            server_hello(&hello[4..4 + i.min(hello.len() - 4)], &mut n);
        }
    }

    /// A DER element of tag holding value.
    fn der(tag: u8, value: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        if value.len() < 0x80 {
            out.push(value.len() as u8);
        } else {
            out.push(0x82);
            out.extend_from_slice(&(value.len() as u16).to_be_bytes());
        }
        out.extend_from_slice(value);
        out
    }

    #[test]
    fn ip_names_from_subject_alt_name() {
        let names = der(0x30, &[der(0x82, b"localhost"), der(0x87, &[127, 0, 0, 1]), der(0x87, &[0; 16])].concat());
        let san = der(0x30, &[der(0x06, &[0x55, 0x1d, 0x11]), der(0x04, &names)].concat());
        let other = der(0x30, &[der(0x06, &[0x55, 0x1d, 0x0f]), der(0x01, &[0xff]), der(0x04, &[3, 2, 7, 0x80])].concat());
        let exts = der(0xa3, &der(0x30, &[other, san].concat()));
        // version, serial, and a long field to need a long-form length.
        let tbs = der(0x30, &[der(0xa0, &der(0x02, &[2])), der(0x02, &[1]), der(0x30, &[0; 200]), exts].concat());
        let cert = der(0x30, &[tbs, der(0x30, &[]), der(0x03, &[0])].concat());
        assert_eq!(ip_names(&cert), Some(vec!["127.0.0.1".parse().unwrap(), "::".parse().unwrap()]));
        assert_eq!(ip_names(&cert[..cert.len() - 1]), None);
        assert_eq!(ip_names(&der(0x30, &der(0x30, &[]))), Some(vec![]));
    }

    #[test]
    fn names_as_go_gives_them() {
        assert_eq!(suite_name(rustls::CipherSuite::TLS13_AES_128_GCM_SHA256), "TLS_AES_128_GCM_SHA256");
        assert_eq!(
            suite_name(rustls::CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256),
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
        );
        assert_eq!(version_name(rustls::ProtocolVersion::TLSv1_3), "TLS 1.3");
    }
}
