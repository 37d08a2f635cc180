package provision

import (
	"bufio"
	"os"
	"runtime"
	"strings"
)

// RustPackages are the distribution's packages the Rust GetItem function (functions/getitem-rust)
// is built with on this machine: the distribution's own Rust toolchain (Debian 12's rustc-web and
// cargo-web, whose rustc is newer than its rustc; elsewhere rustc and cargo), which bring gcc to
// link the function and compile ring's C; the cross gcc and C library of the other architecture
// Lambda runs; and Debian's archive keyring, with which apt checks the crates harness/lambda/
// lambdazip fetches from Debian's archive as the function's Cargo.lock names them. The crates
// themselves are not installed: Debian 12 and Ubuntu package other versions.
var RustPackages = rustPackages(OSRelease("/etc/os-release"), runtime.GOARCH)

// rustPackages are RustPackages on a distribution whose os-release fields are release, on a
// machine of architecture goarch.
func rustPackages(release map[string]string, goarch string) []string {
	pkgs := []string{"rustc", "cargo"}
	if release["ID"] == "debian" && release["VERSION_ID"] == "12" {
		pkgs = []string{"rustc-web", "cargo-web"}
	}
	switch goarch {
	case "amd64":
		pkgs = append(pkgs, "gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross")
	case "arm64":
		pkgs = append(pkgs, "gcc-x86-64-linux-gnu", "libc6-dev-amd64-cross")
	}
	return append(pkgs, "debian-archive-keyring")
}

// OSRelease reads an os-release file's KEY=value fields, unquoted; none where it cannot be read.
func OSRelease(path string) map[string]string {
	fields := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return fields
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && !strings.HasPrefix(k, "#") {
			fields[k] = strings.Trim(v, `"'`)
		}
	}
	return fields
}
