//! The code's first page-in from a cold page cache, for the article variant (article.rs): what a
//! first TLS connection in a process pays when the code it runs must still be read from storage,
//! as on a new Lambda environment, and not from a page cache that earlier environments filled.
//!
//! Two probes, each a fresh process of this same binary (started with PROBE_SETTING) that loads
//! the roots and makes one hand-timed connection, as the article variant's first, and exits:
//!   1. cold: first the binary's pages are dropped from the page cache (posix_fadvise
//!      POSIX_FADV_DONTNEED, after a write-back), so what the probe runs that no live process
//!      has mapped is read from storage again (major page faults);
//!   2. warm: the same, right after, the code now in the page cache.
//!
//! The first less the second is the page-in. The kernel drops only pages no process maps, and
//! the function's own process maps what it has run (its start, its Init), so only code first run
//! after Init, the handshake's among it, is read again: the pages resident before and after the
//! drop (mincore) say how much was dropped. The probes run in the environment, so at its CPU
//! quota, and before the function's own first connection, which has then run none of the
//! handshake's code and keeps none of its pages in place.

use std::fs::File;
use std::io::Read;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::article::{faults, hand_timed, Meter, Span};
use crate::clock::process_cpu;
use crate::settings;
use crate::tls::load_roots;

/// The setting that makes the binary a probe (probe) rather than a function: the article
/// variant's first invocation starts the binary again with it.
pub const PROBE_SETTING: &str = "CLAIMS_ARTICLE_PROBE";

/// How long a probe's own connection may take before it gives up; the invocation's deadline ends
/// the probe sooner where it comes first.
const PROBE_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the first invocation waits after the probes before its own connection: the probes'
/// CPU is charged to the environment's quota, and an overrun is paid back in the next period, so
/// the wait spans several of the model's 20 ms periods and a whole one of Linux's default 100 ms,
/// and the function's first connection starts with its quota whole.
pub const QUOTA_REFILL: Duration = Duration::from_millis(120);

/// The probes' figures: the binary's pages, how many were in the page cache before and after the
/// drop, and each probe's answer or why it has none.
pub struct PageIn {
    /// The binary's size in pages.
    pub pages: usize,
    /// Its pages in the page cache before the drop, after it, and after the cold probe (what
    /// the cold probe read back in, read-around included).
    pub resident_before: usize,
    pub resident_after: usize,
    pub resident_after_cold: usize,
    /// The probe after the drop, and the one after it.
    pub cold: Result<Value, String>,
    pub warm: Result<Value, String>,
}

impl PageIn {
    /// The figures with their JSON names (results/family/getitem's PageIn).
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "pages": self.pages,
            "residentBefore": self.resident_before,
            "residentAfterDrop": self.resident_after,
            "residentAfterCold": self.resident_after_cold,
        });
        for (name, probe) in [("cold", &self.cold), ("warm", &self.warm)] {
            match probe {
                Ok(p) => v[name] = p.clone(),
                Err(e) => v[format!("{name}Error")] = e.as_str().into(),
            }
        }
        v
    }
}

/// Drops this binary's pages from the page cache and runs the cold probe, then the warm one, each
/// ended at deadline (the invocation's) if it has not ended by then.
pub fn measure(deadline: Instant) -> Result<PageIn, String> {
    let exe = std::env::current_exe().map_err(|e| format!("finding this binary: {e}"))?;
    let file = File::open(&exe).map_err(|e| format!("opening {}: {e}", exe.display()))?;
    let (pages, resident_before) = residency(&file)?;
    drop_cached(&file)?;
    let (_, resident_after) = residency(&file)?;
    let cold = run_probe(probe_command(&exe), deadline);
    let (_, resident_after_cold) = residency(&file)?;
    let warm = run_probe(probe_command(&exe), deadline);
    Ok(PageIn {
        pages,
        resident_before,
        resident_after,
        resident_after_cold,
        cold,
        warm,
    })
}

/// The file's size in pages and how many of them are in the page cache (mincore over a mapping of
/// it, which reads nothing in).
fn residency(file: &File) -> Result<(usize, usize), String> {
    let len = file.metadata().map_err(|e| format!("the binary's size: {e}"))?.len() as usize;
    // SAFETY: sysconf reads a configuration value and touches no memory of ours.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if len == 0 || page <= 0 {
        return Err(format!("the binary's residency: size {len}, page size {page}"));
    }
    let pages = len.div_ceil(page as usize);
    let mut resident = vec![0u8; pages];
    // SAFETY: a shared read-only mapping of the whole file, unmapped before return; mincore
    // writes one byte a page into resident, which has a byte for every page of the mapping.
    let r = unsafe {
        let addr = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        );
        if addr == libc::MAP_FAILED {
            return Err(format!("mapping the binary: {}", std::io::Error::last_os_error()));
        }
        let r = libc::mincore(addr, len, resident.as_mut_ptr());
        let e = std::io::Error::last_os_error();
        libc::munmap(addr, len);
        (r, e)
    };
    if r.0 != 0 {
        return Err(format!("mincore on the binary: {}", r.1));
    }
    Ok((pages, resident.iter().filter(|b| *b & 1 == 1).count()))
}

/// Drops file's pages that no process maps from the page cache. A dirty page is not dropped, so
/// the file is written back first (a binary unpacked a moment ago may not be yet); where it cannot
/// be, on a read-only file system, it has nothing to write.
fn drop_cached(file: &File) -> Result<(), String> {
    // SAFETY: both calls take the descriptor file holds for the call and touch no memory of ours.
    let r = unsafe {
        libc::fdatasync(file.as_raw_fd());
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED)
    };
    if r != 0 {
        return Err(format!(
            "dropping the binary's pages (posix_fadvise): {}",
            std::io::Error::from_raw_os_error(r)
        ));
    }
    Ok(())
}

/// The command that runs exe as a probe, with the function's own settings.
fn probe_command(exe: &Path) -> Command {
    let mut cmd = Command::new(exe);
    cmd.env(PROBE_SETTING, "1");
    cmd
}

/// Runs cmd, a probe, and reads its answer, adding "processMs", the probe's wall time from its
/// start to its exit. A probe still running at deadline is killed and reaped, and its run is an
/// error.
fn run_probe(mut cmd: Command, deadline: Instant) -> Result<Value, String> {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("starting the probe {:?}: {e}", cmd.get_program()))?;
    let out = child.stdout.take().expect("the probe's stdout is piped");
    let read = read_until(out, deadline);
    if read.is_err() {
        let _ = child.kill();
    }
    let status = child.wait().map_err(|e| format!("waiting for the probe: {e}"))?;
    let process_ms = crate::clock::ms(start.elapsed());
    let text = read?;
    if !status.success() {
        return Err(format!("the probe ended with {status}: {}", text.trim()));
    }
    let mut v: Value = serde_json::from_str(&text).map_err(|e| format!("the probe's answer {:?}: {e}", text.trim()))?;
    v["processMs"] = process_ms.into();
    Ok(v)
}

/// Reads out to its end (the probe's exit), polling so that it gives up at deadline without
/// waking while the probe works.
fn read_until(mut out: std::process::ChildStdout, deadline: Instant) -> Result<String, String> {
    let mut text = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut fd = libc::pollfd {
            fd: out.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll reads and writes the one pollfd, which lives for the call.
        let n = unsafe { libc::poll(&mut fd, 1, left.as_millis().min(i32::MAX as u128) as i32) };
        if n == 0 {
            return Err("the probe had not ended at the invocation's deadline".into());
        }
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(format!("waiting for the probe's answer: {e}"));
        }
        match out.read(&mut chunk) {
            Ok(0) => return Ok(String::from_utf8_lossy(&text).into_owned()),
            Ok(k) => text.extend_from_slice(&chunk[..k]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("reading the probe's answer: {e}")),
        }
    }
}

/// The probe itself, in the process started with PROBE_SETTING: the tokio runtime as main starts
/// it, the settings, the roots loaded and a ClientConfig built (timed, before the connection, as
/// the article built its before its timer), then one hand-timed connection. Its answer: "roots"
/// (a span), "handTimed", and "total", the process's whole run as it ends (its wall time from
/// the kernel's start of it, its CPU and its page faults): the read-around of its first faults
/// can read the handshake's code in before the handshake, so its page-in is whole only here.
pub fn probe() -> Result<Value, String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the tokio runtime: {e}"))?;
    let s = settings::load(&|k| std::env::var(k).ok())?;
    let m = Meter::start();
    let roots = load_roots(s.ca_file.as_deref())?;
    let config = roots.client_config();
    let loaded = m.stop();
    let h = rt.block_on(hand_timed(config, &s.endpoint, Instant::now() + PROBE_CONNECT_TIMEOUT));
    let (minor_faults, major_faults) = faults();
    let ms = crate::clock::since_process_start().map(crate::clock::ms)?;
    let total = Span {
        ms,
        cpu_ms: crate::clock::ms(process_cpu()),
        minor_faults,
        major_faults,
    };
    Ok(json!({ "roots": loaded.to_json(), "handTimed": h.to_json(), "total": total.to_json() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_answers_with_its_process_time() {
        let mut cmd = Command::new("echo");
        cmd.arg(r#"{"handTimed":{}}"#);
        let v = run_probe(cmd, Instant::now() + Duration::from_secs(5)).expect("run_probe");
        assert!(
            v["processMs"].as_f64().is_some_and(|ms| ms > 0.0) && v["handTimed"].is_object(),
            "{v}"
        );
    }

    #[test]
    fn residency_counts_a_files_pages() {
        let exe = std::env::current_exe().expect("current_exe");
        let file = File::open(&exe).expect("opening the test binary");
        let (pages, resident) = residency(&file).expect("residency");
        assert!(pages > 0 && resident <= pages, "pages {pages}, resident {resident}");
    }

    #[test]
    fn a_probe_that_outlives_the_deadline_is_ended() {
        // sleep stands in for a probe that never answers.
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        let start = Instant::now();
        let got = run_probe(cmd, Instant::now() + Duration::from_millis(200));
        assert!(got.as_ref().is_err_and(|e| e.contains("deadline")), "{got:?}");
        assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
    }
}
