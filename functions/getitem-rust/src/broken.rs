//! The deliberately broken builds, for the claim tests' own tests, chosen by Cargo features (one
//! per build tag of functions.Broken): each breaks one claim's premise, which its test must catch.

use crate::dynamo::Dynamo;
use crate::trace::Phases;

/// Whether a failed warm-up fails Init. False: a failed warm-up is reported and Init goes on
/// (claim T4). The brokenwarmup build fails Init, which T4 warns against.
pub const FAIL_INIT_ON_WARMUP_ERROR: bool = cfg!(feature = "brokenwarmup");

/// The phases a call reports, from those its client recorded. The brokentrace build reports none:
/// the phases of no connection at all, which the T6 claim test must catch.
pub fn reported(recorded: Phases) -> Phases {
    if cfg!(feature = "brokentrace") {
        Phases {
            total_ms: recorded.total_ms,
            error: recorded.error,
            ..Phases::default()
        }
    } else {
        recorded
    }
}

/// The client the warm-up calls through: the handler's own, so that the connection it leaves in
/// the pool is the one the handler's first call takes (claim T3). The brokenwarmclient build makes
/// a second client with a connection pool (and TLS session cache) of its own, from the same
/// roots: the warm-up then warms a connection the handler never uses.
pub fn warmup_client(c: &Dynamo, own: impl FnOnce() -> Dynamo) -> Dynamo {
    if cfg!(feature = "brokenwarmclient") {
        own()
    } else {
        c.clone()
    }
}
