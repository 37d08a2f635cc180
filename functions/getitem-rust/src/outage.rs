//! CLAIMS_WARMUP_OUTAGE's endpoints: where the warm-up goes instead of DynamoDB, so that claim T4
//! can be tried on Lambda, where nobody can take DynamoDB away. Both are inside the function's
//! own sandbox (loopback), and only the warm-up uses them: the handler's GetItem still goes to
//! DynamoDB.

use std::net::TcpListener;

use crate::settings::{OUTAGE_REFUSED, OUTAGE_STALLED};

/// Opens the sandbox's endpoint for how (refused or stalled) and returns its URL. refused is a
/// port that was bound and closed again, so nothing listens: the connection is refused at once.
/// stalled is a listener that accepts and never answers, so the handshake hangs; it and what it
/// accepts stay open for the life of the process.
pub fn endpoint(how: &str) -> Result<String, String> {
    let ln = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("CLAIMS_WARMUP_OUTAGE = {how:?}: {e}"))?;
    let addr = ln
        .local_addr()
        .map_err(|e| format!("CLAIMS_WARMUP_OUTAGE = {how:?}: {e}"))?;
    let url = format!("https://{addr}");
    match how {
        OUTAGE_REFUSED => Ok(url),
        OUTAGE_STALLED => {
            std::thread::spawn(move || {
                let mut held = Vec::new();
                for c in ln.incoming() {
                    match c {
                        Ok(c) => held.push(c), // never read, never answered, never closed
                        Err(_) => return,
                    }
                }
            });
            Ok(url)
        }
        _ => Err(format!(
            "CLAIMS_WARMUP_OUTAGE = {how:?}; want {OUTAGE_REFUSED:?}, {OUTAGE_STALLED:?} or unset"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpStream;
    use std::time::Duration;

    fn addr(url: &str) -> &str {
        url.strip_prefix("https://").unwrap()
    }

    #[test]
    fn refused_refuses_and_stalled_stalls() {
        let refused = endpoint(OUTAGE_REFUSED).unwrap();
        assert!(
            TcpStream::connect(addr(&refused)).is_err(),
            "{refused} accepted a connection"
        );

        let stalled = endpoint(OUTAGE_STALLED).unwrap();
        let mut c = TcpStream::connect(addr(&stalled)).expect("the stall accepts");
        c.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        let err = c.read(&mut [0; 1]).expect_err("the stall answered");
        assert!(
            matches!(
                err.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
            "{err}"
        );

        assert!(endpoint("flaky").is_err());
    }
}
