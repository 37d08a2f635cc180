package lambdazip

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/repo"
)

// TestLockedCratesAreTheRegistrysOnly: the function's own package (no source) is not a crate to
// fetch; each registry package is, named as Debian provides it.
func TestLockedCratesAreTheRegistrysOnly(t *testing.T) {
	lock := []byte(`version = 3

[[package]]
name = "cfg-if"
version = "1.0.0"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "Could not get crate checksum"

[[package]]
name = "getitem-rust"
version = "0.1.0"
dependencies = [
 "serde_json",
]

[[package]]
name = "serde_json"
version = "1.0.139"
source = "registry+https://github.com/rust-lang/crates.io-index"
`)
	crates, err := lockedCrates(lock)
	require.NoError(t, err)
	assert.Equal(t, []lockedCrate{{"cfg-if", "1.0.0"}, {"serde_json", "1.0.139"}}, crates)
	assert.Equal(t, "librust-serde-json-1.0.139-dev", crates[1].debPackage())
	_, err = lockedCrates([]byte("version = 3\n"))
	assert.Error(t, err, "a lockfile with no crate")
}

// TestTheFunctionsLockfilePinsTheArticlesStack: the Cargo.lock kept with the function names
// rustls 0.23, tokio-rustls 0.26 and hyper 1, each once, and is version 3, which every cargo
// since 1.53 reads (Ubuntu 24.04's is 1.75).
func TestTheFunctionsLockfilePinsTheArticlesStack(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	text, err := os.ReadFile(filepath.Join(root, rustPkg, "Cargo.lock"))
	require.NoError(t, err)
	assert.Contains(t, string(text), "\nversion = 3\n", "Cargo.lock's format")
	crates, err := lockedCrates(text)
	require.NoError(t, err)
	versions := map[string][]string{}
	for _, c := range crates {
		versions[c.name] = append(versions[c.name], c.version)
	}
	for name, major := range map[string]string{"rustls": "0.23.", "tokio-rustls": "0.26.", "hyper": "1.", "ring": "0.17."} {
		if assert.Len(t, versions[name], 1, "%s's versions in Cargo.lock", name) {
			assert.True(t, strings.HasPrefix(versions[name][0], major), "%s's version %s", name, versions[name][0])
		}
	}
}

// TestDebianURIFromSources: the archive among apt sources in either format; a security or
// third-party source is not it.
func TestDebianURIFromSources(t *testing.T) {
	deb822 := "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\nTypes: deb\nURIs: http://mirror.example/debian/\nSuites: bookworm\n"
	assert.Equal(t, "http://mirror.example/debian", debianURI(deb822))
	oneLine := "deb [signed-by=/k.gpg arch=amd64] http://mirror.example/debian trixie main\n"
	assert.Equal(t, "http://mirror.example/debian", debianURI(oneLine))
	assert.Equal(t, "", debianURI("deb https://apt.example/ nodistro main\n"))
}

// TestProvidersFromShowpkg: each virtual package's provider and its version, as apt-cache showpkg
// prints them; one that nothing provides is absent.
func TestProvidersFromShowpkg(t *testing.T) {
	out := `Package: librust-cfg-if-1.0.0-dev
Versions: 

Reverse Depends: 
Dependencies: 
Provides: 
Reverse Provides: 
librust-cfg-if-dev 1.0.0-1+b2 (= 1.0.0-1+b2)
Package: librust-rustls-0.23.26-dev
Versions: 

Reverse Depends: 
  librust-tokio-rustls-dev,librust-rustls-0.23+ring-dev 0.23.15-~~
Dependencies: 
Provides: 
Reverse Provides: 
librust-rustls-dev 0.23.26+ds-1 (= 0.23.26+ds-1)
Package: librust-hyper-0.14.1-dev
Versions: 

Reverse Depends: 
Dependencies: 
Provides: 
Reverse Provides: 
`
	assert.Equal(t, map[string]string{
		"librust-cfg-if-1.0.0-dev":   "librust-cfg-if-dev=1.0.0-1+b2",
		"librust-rustls-0.23.26-dev": "librust-rustls-dev=0.23.26+ds-1",
	}, parseProviders(out))
}

// TestMadisonNamesTheSourceOfAVersion: the archive, suite and component that hold exactly the
// installed version, not another.
func TestMadisonNamesTheSourceOfAVersion(t *testing.T) {
	out := ` libstd-rust-web-dev | 1.96.0+dfsg1-1~deb12u2 | http://mirror.example/debian-security bookworm-security/main amd64 Packages
 libstd-rust-web-dev | 1.85.0+dfsg3-1~deb12u3 | http://mirror.example/debian bookworm/main amd64 Packages
`
	uri, suite, component, ok := parseMadison(out, "1.85.0+dfsg3-1~deb12u3")
	assert.True(t, ok)
	assert.Equal(t, []string{"http://mirror.example/debian", "bookworm", "main"}, []string{uri, suite, component})
	_, _, _, ok = parseMadison(out, "1.96.0")
	assert.False(t, ok, "a version madison does not list exactly")
}
