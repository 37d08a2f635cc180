package provision

// FunctionCheckPackages are the Debian packages of the functions' own checks (functions'
// TestEachFunctionPassesItsOwnChecks, which make test runs): Clippy and rustfmt of the Rust
// toolchain that builds the Rust function (RustPackages: on Debian 12 the -web toolchain's own,
// so that cargo clippy's driver is its rustc's version), and flake8, the Python function's linter.
var FunctionCheckPackages = functionCheckPackages(OSRelease("/etc/os-release"))

// functionCheckPackages are FunctionCheckPackages on a distribution whose os-release fields are
// release.
func functionCheckPackages(release map[string]string) []string {
	pkgs := []string{"rust-clippy", "rustfmt"}
	if release["ID"] == "debian" && release["VERSION_ID"] == "12" {
		pkgs = []string{"rust-web-clippy", "rustfmt-web"}
	}
	return append(pkgs, "flake8")
}
