package lambdazip

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/build"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// testPkg is the smallest function of the repository.
const testPkg = "functions/throttle"

// tinyPkg is a main package with few dependencies, so that building it from an empty build
// cache stays quick.
const tinyPkg = "harness/lambda/lambdazip/testdata/hello"

// TestBuildIsReproducible builds the same package twice into different folders, once with the
// machine's build cache and once with an empty one, and wants the very same bytes: nothing of
// the folder, the time or the cache may reach the zip.
func TestBuildIsReproducible(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	var zips [2]Package
	for i := range zips {
		if i == 1 {
			t.Setenv("GOCACHE", t.TempDir())
		}
		zips[i], err = buildBundle(root, t.TempDir(), "hello", tinyPkg, Go, ARM64, nil, true)
		require.NoError(t, err)
	}
	a, err := zips[0].Bytes()
	require.NoError(t, err)
	b, err := zips[1].Bytes()
	require.NoError(t, err)
	assert.True(t, bytes.Equal(a, b), "second build = %s (%d bytes); want the first's %s (%d bytes)",
		zips[1].SHA256, len(b), zips[0].SHA256, len(a))
	sum := sha256.Sum256(a)
	assert.Equal(t, hex.EncodeToString(sum[:]), zips[0].SHA256, "SHA256 = %s; want the sum of the zip's bytes", zips[0].SHA256)
	assert.Equal(t, int64(len(a)), zips[0].Size)
}

// TestZipHoldsOnlyAnExecutableBootstrap: provided.al2023 runs the file named bootstrap at the
// zip's root, and only when it is executable.
func TestZipHoldsOnlyAnExecutableBootstrap(t *testing.T) {
	p, err := Build(testPkg, X8664)
	require.NoError(t, err)
	again, err := Build(testPkg, X8664)
	require.NoError(t, err)
	assert.Equal(t, p, again, "a second Build of the same function must reuse the first")
	assert.Equal(t, X8664, p.Arch)
	assert.Equal(t, testPkg, p.Package)

	data, err := p.Bytes()
	require.NoError(t, err)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	names := make([]string, 0, len(zr.File))
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	require.Equal(t, []string{"bootstrap"}, names, "entries = %v; want bootstrap alone", names)
	f := zr.File[0]
	assert.Equal(t, os.FileMode(0o755), f.Mode(), "bootstrap's mode = %v; want -rwxr-xr-x", f.Mode())
	assert.Equal(t, zip.Deflate, f.Method, "method = %d; want deflate", f.Method)
	assert.True(t, f.Modified.Equal(time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)),
		"modified = %v; want 1980-01-01", f.Modified)

	rc, err := f.Open()
	require.NoError(t, err)
	t.Cleanup(func() { rc.Close() })
	head := make([]byte, 20)
	_, err = rc.Read(head)
	require.NoError(t, err)
	assert.Equal(t, []byte("\x7fELF"), head[:4], "bootstrap starts %q; want an ELF binary", head[:4])
	// e_machine, little-endian at offset 18: 0x3e is x86-64.
	assert.Equal(t, byte(0x3e), head[18], "ELF machine = %#x; want x86-64 (0x3e)", head[18])
}

func TestArch(t *testing.T) {
	a, err := ParseArch("")
	require.NoError(t, err)
	assert.Equal(t, ARM64, a, "ParseArch(\"\") = %q; want arm64", a)
	a, err = ParseArch("x86_64")
	require.NoError(t, err)
	assert.Equal(t, "amd64", a.GOARCH())
	assert.Equal(t, "arm64", ARM64.GOARCH())

	_, err = ParseArch("amd64")
	assert.ErrorContains(t, err, `"amd64"`, "Go's name is not Lambda's and must be refused by name")
	_, err = Build(testPkg, "ppc64le")
	assert.ErrorContains(t, err, `"ppc64le"`)
}

// buildTags are the build tags bin was built with.
func buildTags(t *testing.T, bin string) []string {
	t.Helper()
	tags, err := build.BinaryTags(bin)
	require.NoError(t, err)
	return tags
}

// bootstrapOf writes the zip's bootstrap to a temporary file, for go version -m.
func bootstrapOf(t *testing.T, p Package) string {
	t.Helper()
	data, err := p.Bytes()
	require.NoError(t, err)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	require.Len(t, zr.File, 1)
	rc, err := zr.File[0].Open()
	require.NoError(t, err)
	t.Cleanup(func() { rc.Close() })
	bin, err := io.ReadAll(rc)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "bootstrap")
	require.NoError(t, os.WriteFile(path, bin, 0o755))
	return path
}

// TestFunctionsAreBuiltWithoutTheRPCMode: aws-lambda-go's lambda.norpc tag drops the go1.x RPC
// mode, which provided.al2023 never uses; each function's zip carries it, with its own tags.
func TestFunctionsAreBuiltWithoutTheRPCMode(t *testing.T) {
	for _, tc := range []struct {
		pkg  string
		tags []string
		want []string
	}{
		{"functions/getitem", nil, []string{build.NoRPC}},
		{"functions/throttle", nil, []string{build.NoRPC}},
		{"functions/getitem", []string{"brokentrace"}, []string{build.NoRPC, "brokentrace"}},
	} {
		t.Run(strings.Join(append([]string{tc.pkg}, tc.tags...), " "), func(t *testing.T) {
			p, err := Build(tc.pkg, ARM64, tc.tags...)
			require.NoError(t, err)
			got := buildTags(t, bootstrapOf(t, p))
			assert.Equal(t, tc.want, got, "build tags of %s = %v; want %v (go version -m)", tc.pkg, got, tc.want)
		})
	}
}

// TestBootstrapIsTheBinaryBuildGoMakes: on this machine's architecture, the zip's bootstrap and
// the binary build.Go makes for the emulator and the local platform are one binary, byte for
// byte: one set of build settings, so that the local platform runs what Lambda runs and the two
// builds share every compiled package.
func TestBootstrapIsTheBinaryBuildGoMakes(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skipf("Lambda runs neither %s/%s nor its binaries: nothing to compare", runtime.GOOS, runtime.GOARCH)
	}
	arch := X8664
	if runtime.GOARCH == "arm64" {
		arch = ARM64
	}
	p, err := Build(testPkg, arch)
	require.NoError(t, err)
	zipped, err := os.ReadFile(bootstrapOf(t, p))
	require.NoError(t, err)
	bin, err := build.Go(testPkg)
	require.NoError(t, err)
	local, err := os.ReadFile(bin)
	require.NoError(t, err)
	zs, ls := sha256.Sum256(zipped), sha256.Sum256(local)
	assert.Equal(t, hex.EncodeToString(zs[:]), hex.EncodeToString(ls[:]),
		"sha256 of build.Go(%q) = %x (%d bytes); want the zip's bootstrap's (%d bytes)", testPkg, ls, len(local), len(zipped))
}

// TestUnzippedIsBuildsFolderWithoutTheZip: the local platforms' build is the zip's content,
// in a folder named for it, which a build of other content leaves in place.
func TestUnzippedIsBuildsFolderWithoutTheZip(t *testing.T) {
	dir, err := Unzipped(testPkg, X8664)
	require.NoError(t, err)
	assert.Empty(t, dir.Path, "Unzipped's zip = %q; want none", dir.Path)
	zipped, err := Build(testPkg, X8664)
	require.NoError(t, err)
	assert.Equal(t, zipped.Dir, dir.Dir, "the folders of the same content")
	other, err := Unzipped(testPkg, X8664, "claimsother")
	require.NoError(t, err)
	assert.NotEqual(t, dir.Dir, other.Dir, "the folders of other content")
	assert.FileExists(t, filepath.Join(dir.Dir, "bootstrap"), "the first build's bootstrap, after a build of other content")
}

// TestLanguagesAreTheBuilders: every language the catalog lists (Languages) is one this package
// builds, and every language it builds is listed.
func TestLanguagesAreTheBuilders(t *testing.T) {
	built := slices.Collect(maps.Keys(builders))
	assert.ElementsMatch(t, Languages, built, "Languages (catalog.FunctionLanguages) = %v; want the languages with a builder, %v", Languages, built)
}
