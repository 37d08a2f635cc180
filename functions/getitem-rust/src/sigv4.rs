//! AWS Signature Version 4, as AWS publishes the algorithm: a canonical request, a string to
//! sign, and a signing key derived from the secret by a chain of HMAC-SHA256 (ring::hmac), the
//! hashes SHA-256 (ring::digest). There is no AWS SDK for Rust in Debian, so the function signs
//! its requests itself.

use ring::{digest, hmac};
use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

/// The credentials a request is signed with: Lambda puts the execution role's in the
/// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
#[derive(Clone)]
pub struct Credentials {
    /// The access key id, named in the signature's scope.
    pub access_key_id: String,
    /// The secret, from which the signing key is derived; it never goes on the wire.
    pub secret_access_key: String,
    /// The session token of temporary credentials, sent and signed as X-Amz-Security-Token.
    pub session_token: Option<String>,
}

/// What a request is signed for: its credentials, region and service.
#[derive(Clone)]
pub struct Signer {
    /// The credentials to sign with.
    pub credentials: Credentials,
    /// The region in the scope, as AWS names it ("us-east-1").
    pub region: String,
    /// The service in the scope ("dynamodb").
    pub service: String,
}

/// The signing algorithm's name, in the string to sign and the Authorization header.
const ALGORITHM: &str = "AWS4-HMAC-SHA256";

impl Signer {
    /// Signs a request: adds X-Amz-Date (and X-Amz-Security-Token with temporary credentials)
    /// to headers and returns the Authorization header's value. Every header in headers is
    /// signed, so headers must hold Host and nothing a proxy may rewrite; path is the request's
    /// URI path, query its canonical query string ("" for none).
    pub fn sign(
        &self,
        method: &str,
        path: &str,
        query: &str,
        headers: &mut Vec<(String, String)>,
        payload: &[u8],
        now: SystemTime,
    ) -> String {
        let (date, time) = amz_date(now);
        headers.push(("X-Amz-Date".into(), format!("{date}T{time}Z")));
        if let Some(token) = &self.credentials.session_token {
            headers.push(("X-Amz-Security-Token".into(), token.clone()));
        }
        let (canonical_headers, signed_headers) = canonical_headers(headers);
        let canonical_request = format!(
            "{method}\n{}\n{query}\n{canonical_headers}\n{signed_headers}\n{}",
            canonical_uri(path),
            hex(digest::digest(&digest::SHA256, payload).as_ref())
        );
        let scope = format!("{date}/{}/{}/aws4_request", self.region, self.service);
        let string_to_sign = format!(
            "{ALGORITHM}\n{date}T{time}Z\n{scope}\n{}",
            hex(digest::digest(&digest::SHA256, canonical_request.as_bytes()).as_ref())
        );
        let key = self.signing_key(&date);
        let signature = hex(hmac::sign(&key, string_to_sign.as_bytes()).as_ref());
        format!(
            "{ALGORITHM} Credential={}/{scope}, SignedHeaders={signed_headers}, Signature={signature}",
            self.credentials.access_key_id
        )
    }

    /// The signing key of one day: HMAC-SHA256 of the date under "AWS4" and the secret, then of
    /// the region, the service and "aws4_request", each under the last.
    fn signing_key(&self, date: &str) -> hmac::Key {
        let mut key = format!("AWS4{}", self.credentials.secret_access_key).into_bytes();
        for part in [date, &self.region, &self.service, "aws4_request"] {
            let k = hmac::Key::new(hmac::HMAC_SHA256, &key);
            key = hmac::sign(&k, part.as_bytes()).as_ref().to_vec();
        }
        hmac::Key::new(hmac::HMAC_SHA256, &key)
    }
}

/// The canonical headers (each lowercased name, a colon, the value trimmed with inner runs of
/// spaces folded to one, and a newline, sorted by name) and the signed headers' list
/// (the names, sorted, joined by ';').
fn canonical_headers(headers: &[(String, String)]) -> (String, String) {
    let mut hs: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| {
            (
                k.to_ascii_lowercase(),
                v.split_whitespace().collect::<Vec<_>>().join(" "),
            )
        })
        .collect();
    hs.sort();
    let canonical = hs.iter().fold(String::new(), |mut s, (k, v)| {
        let _ = writeln!(s, "{k}:{v}"); // writing to a String cannot fail
        s
    });
    let signed = hs.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(";");
    (canonical, signed)
}

/// The canonical URI: the path with each segment URI-encoded (all but the unreserved
/// characters), "/" for an empty path.
fn canonical_uri(path: &str) -> String {
    if path.is_empty() {
        return "/".into();
    }
    path.split('/').map(uri_encode).collect::<Vec<_>>().join("/")
}

/// URI-encodes s as SigV4 wants: every byte but A-Z a-z 0-9 - . _ ~ as %XX, upper-case hex.
fn uri_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Lower-case hex of b.
pub fn hex(b: &[u8]) -> String {
    b.iter().fold(String::with_capacity(2 * b.len()), |mut s, x| {
        let _ = write!(s, "{x:02x}"); // writing to a String cannot fail
        s
    })
}

/// The UTC date (YYYYMMDD) and time (HHMMSS) of t, as X-Amz-Date and the scope write them.
fn amz_date(t: SystemTime) -> (String, String) {
    let secs = t.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    (
        format!("{y:04}{m:02}{d:02}"),
        format!("{:02}{:02}{:02}", rem / 3600, rem / 60 % 60, rem % 60),
    )
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
/// civil_from_days): the standard library has no calendar.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn dates_are_utc_calendar_dates() {
        assert_eq!(amz_date(at(0)), ("19700101".into(), "000000".into()));
        // 2015-08-30T12:36:00Z, the date of AWS's SigV4 test suite.
        assert_eq!(amz_date(at(1_440_938_160)), ("20150830".into(), "123600".into()));
        // 2024-02-29T23:59:59Z, a leap day.
        assert_eq!(amz_date(at(1_709_251_199)), ("20240229".into(), "235959".into()));
    }

    fn example_signer(session_token: Option<&str>) -> Signer {
        Signer {
            credentials: Credentials {
                access_key_id: "AKIDEXAMPLE".into(),
                secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
                session_token: session_token.map(String::from),
            },
            region: "us-east-1".into(),
            service: "service".into(),
        }
    }

    /// AWS's SigV4 test suite's get-vanilla: its published canonical request, string to sign and
    /// signature.
    #[test]
    fn get_vanilla() {
        let mut headers = vec![("Host".to_string(), "example.amazonaws.com".to_string())];
        let auth = example_signer(None).sign("GET", "/", "", &mut headers, b"", at(1_440_938_160));
        assert_eq!(
            auth,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
             SignedHeaders=host;x-amz-date, \
             Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        );
        assert!(headers.contains(&("X-Amz-Date".into(), "20150830T123600Z".into())));
    }

    /// AWS's SigV4 test suite's post-x-www-form-urlencoded: a body, and a header whose value
    /// has spaces.
    #[test]
    fn post_with_a_body() {
        let mut headers = vec![
            (
                "Content-Type".to_string(),
                "application/x-www-form-urlencoded".to_string(),
            ),
            ("Host".to_string(), "example.amazonaws.com".to_string()),
        ];
        let auth = example_signer(None).sign("POST", "/", "", &mut headers, b"Param1=value1", at(1_440_938_160));
        assert_eq!(
            auth,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
             SignedHeaders=content-type;host;x-amz-date, \
             Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"
        );
    }

    /// A GetItem as the function signs it, with a session token: the signature is the one
    /// aws-sdk-go-v2's v4.Signer gives the same request (same headers, body and time).
    #[test]
    fn a_get_item_as_the_go_sdk_signs_it() {
        let signer = Signer {
            credentials: Credentials {
                access_key_id: "claims-local".into(),
                secret_access_key: "claims-local-secret".into(),
                session_token: Some("tok en".into()),
            },
            region: "us-east-1".into(),
            service: "dynamodb".into(),
        };
        let mut headers = vec![
            ("Host".to_string(), "127.0.0.1:4567".to_string()),
            ("Content-Type".to_string(), "application/x-amz-json-1.0".to_string()),
            ("X-Amz-Target".to_string(), "DynamoDB_20120810.GetItem".to_string()),
        ];
        let body = br#"{"Key":{"pk":{"S":"bench"}},"TableName":"claims"}"#;
        let auth = signer.sign("POST", "/", "", &mut headers, body, at(1_700_000_000));
        assert_eq!(
            auth,
            "AWS4-HMAC-SHA256 Credential=claims-local/20231114/us-east-1/dynamodb/aws4_request, \
             SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-amz-target, \
             Signature=f7d8c5aff87e28eee2af4ec029747b19c3fbbaafc417a5536fb195832e16e331"
        );
    }

    #[test]
    fn a_session_token_is_sent_and_signed() {
        let mut headers = vec![("Host".to_string(), "example.amazonaws.com".to_string())];
        let auth = example_signer(Some("token")).sign("GET", "/", "", &mut headers, b"", at(1_440_938_160));
        assert!(
            auth.contains("SignedHeaders=host;x-amz-date;x-amz-security-token,"),
            "{auth}"
        );
        assert!(headers.contains(&("X-Amz-Security-Token".into(), "token".into())));
    }

    #[test]
    fn paths_are_encoded_by_segment() {
        assert_eq!(canonical_uri(""), "/");
        assert_eq!(canonical_uri("/"), "/");
        assert_eq!(canonical_uri("/a b/c~d"), "/a%20b/c~d");
    }
}
