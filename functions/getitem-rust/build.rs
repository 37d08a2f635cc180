//! Names the function's stack at build time: the compiler that builds it ($RUSTC --version) and
//! the versions of rustls and ring that Cargo resolved (Cargo.lock), as GETITEM_* variables the
//! function reads with env!.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| panic!("{rustc} --version failed"));
    println!("cargo:rustc-env=GETITEM_RUSTC_VERSION={version}");

    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let lock = std::fs::read_to_string(format!("{dir}/Cargo.lock")).expect("reading Cargo.lock");
    for (name, var) in [("rustls", "GETITEM_RUSTLS_VERSION"), ("ring", "GETITEM_RING_VERSION")] {
        println!(
            "cargo:rustc-env={var}={}",
            locked_version(&lock, name).unwrap_or_else(|| panic!("{name} is not in Cargo.lock"))
        );
    }
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
}

/// The version of package name in a Cargo.lock's text.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let want = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == want {
            let v = lines.next()?.trim().strip_prefix("version = \"")?.strip_suffix('"')?;
            return Some(v.to_string());
        }
    }
    None
}
