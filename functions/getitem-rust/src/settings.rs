//! The function's configuration, all from the environment, read and checked before anything
//! else (see main.rs for the list).

use std::time::Duration;

use serde_json::{Map, Value};

use crate::http::Endpoint;
use crate::sigv4::Credentials;

/// The variants, the values CLAIMS_VARIANT takes.
pub const VARIANT_COLD: &str = "cold";
/// See VARIANT_COLD.
pub const VARIANT_WARM: &str = "warm";
/// The cold variant whose first invocation is timed as the article's was (article.rs).
pub const VARIANT_ARTICLE: &str = "article";

/// The values CLAIMS_WARMUP_OUTAGE takes: where the warm-up goes instead of DynamoDB (outage.rs).
pub const OUTAGE_REFUSED: &str = "refused";
/// See OUTAGE_REFUSED.
pub const OUTAGE_STALLED: &str = "stalled";

/// The warm-up's bound when CLAIMS_WARMUP_TIMEOUT_MS is unset: ten times the article's 75 ms
/// warm-up and a tenth of Lambda's 10 s Init limit.
pub const DEFAULT_WARMUP_TIMEOUT: Duration = Duration::from_secs(1);

/// The function's configuration.
pub struct Settings {
    /// CLAIMS_VARIANT: cold, warm or article.
    pub variant: String,
    /// CLAIMS_TABLE: the table to read.
    pub table: String,
    /// CLAIMS_KEY as GetItem's Key: each attribute as a DynamoDB AttributeValue in JSON.
    pub key: Map<String, Value>,
    /// CLAIMS_CA_FILE: a PEM file of the CAs to trust instead of the system's.
    pub ca_file: Option<String>,
    /// CLAIMS_WARMUP_TIMEOUT_MS: the warm-up's bound.
    pub warmup_timeout: Duration,
    /// CLAIMS_WARMUP_OUTAGE: refused or stalled, or None to warm up on DynamoDB.
    pub warmup_outage: Option<String>,
    /// AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL), else DynamoDB's regional endpoint.
    pub endpoint: Endpoint,
    /// AWS_REGION (or AWS_DEFAULT_REGION).
    pub region: String,
    /// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
    pub credentials: Credentials,
}

/// Reads and checks the configuration through getenv (the environment, or a map in tests); an
/// empty variable is an unset one.
pub fn load(getenv: &dyn Fn(&str) -> Option<String>) -> Result<Settings, String> {
    let get = |k: &str| getenv(k).filter(|v| !v.is_empty());
    let variant = get("CLAIMS_VARIANT").unwrap_or_default();
    if variant != VARIANT_COLD && variant != VARIANT_WARM && variant != VARIANT_ARTICLE {
        return Err(format!(
            "CLAIMS_VARIANT = {variant:?}; want {VARIANT_COLD:?}, {VARIANT_WARM:?} or {VARIANT_ARTICLE:?}"
        ));
    }
    let table = get("CLAIMS_TABLE").ok_or("CLAIMS_TABLE is not set; want the table to read")?;
    let key = parse_key(&get("CLAIMS_KEY").unwrap_or_default())?;
    let warmup_timeout = match get("CLAIMS_WARMUP_TIMEOUT_MS") {
        None => DEFAULT_WARMUP_TIMEOUT,
        Some(v) => match v.parse::<u64>() {
            Ok(n) if n > 0 => Duration::from_millis(n),
            _ => {
                return Err(format!(
                    "CLAIMS_WARMUP_TIMEOUT_MS = {v:?}; want a positive number of milliseconds"
                ))
            }
        },
    };
    let warmup_outage = get("CLAIMS_WARMUP_OUTAGE");
    if let Some(o) = &warmup_outage {
        if o != OUTAGE_REFUSED && o != OUTAGE_STALLED {
            return Err(format!(
                "CLAIMS_WARMUP_OUTAGE = {o:?}; want {OUTAGE_REFUSED:?}, {OUTAGE_STALLED:?} or unset"
            ));
        }
    }
    let region = get("AWS_REGION")
        .or_else(|| get("AWS_DEFAULT_REGION"))
        .ok_or("no region: set AWS_REGION")?;
    let (endpoint, from) = match (get("AWS_ENDPOINT_URL_DYNAMODB"), get("AWS_ENDPOINT_URL")) {
        (Some(u), _) => (u, "AWS_ENDPOINT_URL_DYNAMODB"),
        (None, Some(u)) => (u, "AWS_ENDPOINT_URL"),
        (None, None) => (format!("https://dynamodb.{region}.amazonaws.com"), "AWS_REGION"),
    };
    let endpoint = Endpoint::parse(&endpoint).map_err(|e| format!("{from}: {e}"))?;
    let credentials = match (get("AWS_ACCESS_KEY_ID"), get("AWS_SECRET_ACCESS_KEY")) {
        (Some(access_key_id), Some(secret_access_key)) => {
            Credentials { access_key_id, secret_access_key, session_token: get("AWS_SESSION_TOKEN") }
        }
        _ => return Err("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (the function reads the environment's, which Lambda sets)".into()),
    };
    Ok(Settings {
        variant,
        table,
        key,
        ca_file: get("CLAIMS_CA_FILE"),
        warmup_timeout,
        warmup_outage,
        endpoint,
        region,
        credentials,
    })
}

/// Turns CLAIMS_KEY, a JSON object such as {"pk":"bench","sk":"item-0"}, into a GetItem key: a
/// string is an S attribute, a number an N (kept as written, as DynamoDB wants it).
pub fn parse_key(v: &str) -> Result<Map<String, Value>, String> {
    if v.is_empty() {
        return Err(r#"CLAIMS_KEY is not set; want the item's key as JSON, {"pk":"bench"}"#.into());
    }
    let raw: Value = serde_json::from_str(v)
        .map_err(|e| format!(r#"CLAIMS_KEY = {v:?}: {e}; want a JSON object, {{"pk":"bench"}}"#))?;
    let Value::Object(raw) = raw else {
        return Err(format!(r#"CLAIMS_KEY = {v:?}; want a JSON object, {{"pk":"bench"}}"#));
    };
    if raw.is_empty() {
        return Err(format!("CLAIMS_KEY = {v:?}; want at least one attribute"));
    }
    let mut key = Map::new();
    for (name, val) in raw {
        let attr = match val {
            Value::String(s) => serde_json::json!({ "S": s }),
            Value::Number(n) => serde_json::json!({ "N": n.to_string() }),
            other => {
                return Err(format!(
                    "CLAIMS_KEY = {v:?}: attribute {name:?} is {other}; want a string or a number"
                ))
            }
        };
        key.insert(name, attr);
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| m.get(k).cloned()
    }

    const GOOD: &[(&str, &str)] = &[
        ("CLAIMS_VARIANT", "warm"),
        ("CLAIMS_TABLE", "claims"),
        ("CLAIMS_KEY", r#"{"pk":"bench","n":12345678901234567890.50}"#),
        ("AWS_REGION", "ap-northeast-1"),
        ("AWS_ACCESS_KEY_ID", "AKID"),
        ("AWS_SECRET_ACCESS_KEY", "secret"),
    ];

    #[test]
    fn good_settings() {
        let s = load(&env(GOOD)).expect("settings");
        assert_eq!(s.variant, "warm");
        assert_eq!(s.warmup_timeout, DEFAULT_WARMUP_TIMEOUT);
        assert_eq!(s.endpoint.authority, "dynamodb.ap-northeast-1.amazonaws.com");
        assert_eq!(
            serde_json::to_string(&s.key).unwrap(),
            r#"{"n":{"N":"12345678901234567890.50"},"pk":{"S":"bench"}}"#
        );
        assert!(s.credentials.session_token.is_none() && s.warmup_outage.is_none() && s.ca_file.is_none());
    }

    #[test]
    fn bad_settings_are_named() {
        for (k, v, want) in [
            (
                "CLAIMS_VARIANT",
                "lukewarm",
                r#"CLAIMS_VARIANT = "lukewarm"; want "cold", "warm" or "article""#,
            ),
            ("CLAIMS_VARIANT", "", r#"CLAIMS_VARIANT = """#),
            ("CLAIMS_TABLE", "", "CLAIMS_TABLE is not set"),
            ("CLAIMS_KEY", "", "CLAIMS_KEY is not set"),
            ("CLAIMS_KEY", "[1]", "want a JSON object"),
            ("CLAIMS_KEY", "{}", "want at least one attribute"),
            ("CLAIMS_KEY", r#"{"pk":true}"#, r#"attribute "pk" is true"#),
            ("CLAIMS_WARMUP_TIMEOUT_MS", "0", "CLAIMS_WARMUP_TIMEOUT_MS"),
            ("CLAIMS_WARMUP_OUTAGE", "flaky", "CLAIMS_WARMUP_OUTAGE"),
            ("AWS_REGION", "", "no region"),
            ("AWS_SECRET_ACCESS_KEY", "", "no credentials"),
            (
                "AWS_ENDPOINT_URL_DYNAMODB",
                "http://127.0.0.1:8000",
                "AWS_ENDPOINT_URL_DYNAMODB",
            ),
        ] {
            let mut pairs: Vec<(&str, &str)> = GOOD.iter().filter(|(name, _)| *name != k).copied().collect();
            pairs.push((k, v));
            let err = load(&env(&pairs)).err().unwrap_or_else(|| panic!("{k}={v:?} loaded"));
            assert!(err.contains(want), "{k}={v:?}: {err:?}; want {want:?}");
        }
    }

    #[test]
    fn the_endpoint_setting_wins() {
        let mut pairs = GOOD.to_vec();
        pairs.push(("AWS_ENDPOINT_URL_DYNAMODB", "https://127.0.0.1:4567"));
        pairs.push(("AWS_ENDPOINT_URL", "https://elsewhere:1"));
        assert_eq!(load(&env(&pairs)).unwrap().endpoint.authority, "127.0.0.1:4567");
    }
}
