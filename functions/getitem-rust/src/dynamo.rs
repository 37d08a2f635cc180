//! A DynamoDB client for the two operations the function makes, written by hand because Debian
//! has no AWS SDK for Rust: the JSON 1.0 protocol (POST to the endpoint with X-Amz-Target
//! DynamoDB_20120810.<Operation> and a JSON body), signed with SigV4, sent through the
//! function's HTTP client (hyper's, http.rs), and retried as the SDKs' standard retry mode does.

use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Map, Value};

use crate::clock::ms;
use crate::http::{Client, Endpoint, Failure};
use crate::sigv4::Signer;
use crate::trace::Phases;

/// The most attempts a call makes, as the SDKs' standard retry mode.
const MAX_ATTEMPTS: u32 = 3;

/// The standard retry mode's backoff: a random part of min(MAX_BACKOFF, BASE_BACKOFF × 2^retry).
const BASE_BACKOFF: Duration = Duration::from_secs(1);
/// See BASE_BACKOFF.
const MAX_BACKOFF: Duration = Duration::from_secs(20);

/// The errors the standard retry mode retries as throttling, by their __type's name.
const THROTTLING: &[&str] = &[
    "ThrottlingException",
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "RequestThrottled",
    "RequestThrottledException",
    "Throttling",
    "TooManyRequestsException",
    "TransactionInProgressException",
];

/// A DynamoDB client: the signer, and the HTTP client whose pool its calls share.
#[derive(Clone)]
pub struct Dynamo {
    /// The HTTP client and its connection pool.
    pub http: Client,
    /// Where calls go.
    pub endpoint: Endpoint,
    /// How calls are signed.
    pub signer: Signer,
}

impl Dynamo {
    /// This client pointed at endpoint: the same signer, HTTP client and connection pool.
    pub fn at(&self, endpoint: Endpoint) -> Dynamo {
        Dynamo {
            endpoint,
            ..self.clone()
        }
    }

    /// GetItem of key in table: whether the item exists.
    pub async fn get_item(
        &self,
        table: &str,
        key: &Map<String, Value>,
        deadline: Instant,
        p: &mut Phases,
    ) -> Result<bool, String> {
        let out = self
            .call("GetItem", &json!({ "TableName": table, "Key": key }), deadline, p)
            .await?;
        Ok(matches!(out.get("Item"), Some(Value::Object(item)) if !item.is_empty()))
    }

    /// ListTables with Limit 1, the article's warm-up: it needs no table.
    pub async fn list_tables(&self, deadline: Instant, p: &mut Phases) -> Result<(), String> {
        self.call("ListTables", &json!({ "Limit": 1 }), deadline, p)
            .await
            .map(|_| ())
    }

    /// Calls op with input and returns its output, each attempt's phases into p (the last
    /// attempt's kept) and the whole call's time into p.total_ms. A connection the server had
    /// closed is replaced at once; a transient failure or a throttling or server error is retried
    /// after a backoff, up to MAX_ATTEMPTS, while the backoff ends before deadline.
    pub async fn call(&self, op: &str, input: &Value, deadline: Instant, p: &mut Phases) -> Result<Value, String> {
        let start = Instant::now();
        let r = self.attempts(op, input, deadline, p).await;
        p.total_ms = ms(start.elapsed());
        r.map_err(|e| format!("operation error DynamoDB: {op}, {e}"))
    }

    async fn attempts(&self, op: &str, input: &Value, deadline: Instant, p: &mut Phases) -> Result<Value, String> {
        let payload = serde_json::to_vec(input).map_err(|e| e.to_string())?;
        let mut retries = 0;
        loop {
            p.new_attempt();
            let mut headers = vec![
                ("Host".to_string(), self.endpoint.authority.clone()),
                ("Content-Type".to_string(), "application/x-amz-json-1.0".to_string()),
                ("X-Amz-Target".to_string(), format!("DynamoDB_20120810.{op}")),
            ];
            let auth = self.signer.sign(
                "POST",
                &self.endpoint.path,
                "",
                &mut headers,
                &payload,
                SystemTime::now(),
            );
            headers.push(("Authorization".into(), auth));
            let err = match self.http.post(&self.endpoint, &headers, &payload, deadline, p).await {
                Ok(resp) if resp.status == 200 => {
                    return serde_json::from_slice(&resp.body).map_err(|e| format!("reading the response: {e}"));
                }
                Ok(resp) => {
                    let (kind, msg) = service_error(&resp.body);
                    let e = format!("HTTP {}, {kind}: {msg}", resp.status);
                    if resp.status < 500 && !THROTTLING.contains(&kind.as_str()) {
                        return Err(e);
                    }
                    e
                }
                Err(Failure::Stale(_)) if p.attempts <= MAX_ATTEMPTS => continue,
                Err(Failure::Stale(e) | Failure::Transient(e)) => e,
                Err(Failure::Final(e)) => return Err(e),
            };
            retries += 1;
            if p.attempts >= MAX_ATTEMPTS {
                return Err(format!("exceeded maximum number of attempts, {}, {err}", p.attempts));
            }
            let delay = backoff(retries);
            if Instant::now() + delay >= deadline {
                return Err(format!("retry delay of {delay:?} would pass the deadline, {err}"));
            }
            tokio::time::sleep(delay).await;
        }
    }
}

/// A DynamoDB error's type (the name after '#' in __type) and message.
fn service_error(body: &[u8]) -> (String, String) {
    let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let kind = v.get("__type").and_then(Value::as_str).unwrap_or("UnknownError");
    let kind = kind.rsplit('#').next().unwrap_or(kind).to_string();
    let msg = v
        .get("message")
        .or_else(|| v.get("Message"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    (kind, msg)
}

/// The backoff before retry number retry (from 1): full jitter, as the standard retry mode.
fn backoff(retry: u32) -> Duration {
    let cap = BASE_BACKOFF
        .saturating_mul(1 << retry.saturating_sub(1).min(16))
        .min(MAX_BACKOFF);
    let r: [u8; 8] = ring::rand::generate(&ring::rand::SystemRandom::new())
        .map(|r| r.expose())
        .unwrap_or([0x80; 8]);
    cap.mul_f64(u64::from_le_bytes(r) as f64 / (u64::MAX as f64 + 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_errors_by_type() {
        let (kind, msg) = service_error(
            br#"{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"no table"}"#,
        );
        assert_eq!((kind.as_str(), msg.as_str()), ("ResourceNotFoundException", "no table"));
        assert_eq!(service_error(b"not json").0, "UnknownError");
    }

    #[test]
    fn backoffs_grow_to_their_cap() {
        for retry in 1..8 {
            let d = backoff(retry);
            assert!(
                d < BASE_BACKOFF * (1 << (retry - 1)) && d <= MAX_BACKOFF,
                "retry {retry}: {d:?}"
            );
        }
    }
}
