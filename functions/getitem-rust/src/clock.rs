//! The clocks the function measures with: the process's CPU time, and the process's start as the
//! kernel recorded it, for the function's own measure of its Init.

use std::time::Duration;

/// The CPU time the kernel has charged this process so far, all its threads together
/// (CLOCK_PROCESS_CPUTIME_ID, to the nanosecond). Under a CPU quota wall time is the CPU's cost
/// stretched by throttling; the CPU time is the cost itself. It reads zero where the clock cannot
/// be read, which Linux never does.
pub fn process_cpu() -> Duration {
    read(libc::CLOCK_PROCESS_CPUTIME_ID).unwrap_or(Duration::ZERO)
}

/// Reads clock id.
fn read(id: libc::clockid_t) -> Option<Duration> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into ts, which lives for the call.
    if unsafe { libc::clock_gettime(id, &mut ts) } != 0 {
        return None;
    }
    Some(Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

/// Milliseconds, with the fraction: a loopback handshake takes well under one.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// How long ago the kernel started this process: CLOCK_BOOTTIME now less /proc/self/stat's
/// starttime, which counts clock ticks since boot on the same clock.
pub fn since_process_start() -> Result<Duration, String> {
    let stat = std::fs::read_to_string("/proc/self/stat").map_err(|e| format!("/proc/self/stat: {e}"))?;
    let ticks = start_ticks(&stat)?;
    let now = read(libc::CLOCK_BOOTTIME).ok_or("CLOCK_BOOTTIME cannot be read")?;
    // SAFETY: sysconf reads a configuration value and touches no memory of ours.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz <= 0 {
        return Err("sysconf(_SC_CLK_TCK) failed".into());
    }
    let started = Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / hz as u64);
    Ok(now.saturating_sub(started))
}

/// Reads field 22, starttime, from the text of /proc/PID/stat. The command name (field 2) is in
/// parentheses and may hold spaces and parentheses itself, so fields are counted from the last
/// ')'.
pub fn start_ticks(stat: &str) -> Result<u64, String> {
    let i = stat
        .rfind(')')
        .ok_or_else(|| format!("/proc/self/stat: no command name in {stat:?}"))?;
    let fields: Vec<&str> = stat[i + 1..].split_whitespace().collect();
    const STARTTIME: usize = 22 - 3; // fields[0] is field 3, the state
    let f = fields.get(STARTTIME).ok_or_else(|| {
        format!(
            "/proc/self/stat: {} fields after the command name; want more than {STARTTIME}",
            fields.len()
        )
    })?;
    f.parse().map_err(|e| format!("/proc/self/stat: starttime {f:?}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_ticks_counts_from_the_last_parenthesis() {
        let stat = "4242 (we (ird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10";
        assert_eq!(start_ticks(stat), Ok(987654));
        assert!(start_ticks("4242 (short) S 1 2")
            .unwrap_err()
            .contains("fields after the command name"));
        assert!(start_ticks("garbage").unwrap_err().contains("no command name"));
    }

    #[test]
    fn the_process_started_before_now() {
        let d = since_process_start().expect("reading the process's start");
        assert!(d < Duration::from_secs(3600), "started {d:?} ago");
        assert!(process_cpu() > Duration::ZERO);
    }
}
