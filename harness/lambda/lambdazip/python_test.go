package lambdazip

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pythonPkg is the repository's Python function.
const pythonPkg = "functions/getitem-python"

// pythonCommand is Debian's Python, whose packages the bundle vendors.
const pythonCommand = "/usr/bin/python3"

// needPython skips a test on a machine without Debian's Python and boto3.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(pythonCommand); err != nil {
		t.Skipf("%s is missing: apt-get install python3", pythonCommand)
	}
	if _, err := os.Stat(filepath.Join(pythonDistPackages, "boto3")); err != nil {
		t.Skipf("Debian's boto3 is missing: apt-get install %s", strings.Join(PythonDebianPackages, " "))
	}
}

// pythonClosure is a script that imports boto3 in an interpreter without site (-I -S: nothing
// but the standard library, and dist-packages added by hand), makes a DynamoDB client and one
// call (to a refused port, which runs the request's whole path up to the connect), and prints
// the entries of dist-packages whose modules were loaded.
const pythonClosure = `
import sys
dist = sys.argv[1]
sys.path.append(dist)
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
import boto3, botocore.config
c = boto3.session.Session(region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b").client(
    "dynamodb", endpoint_url="https://127.0.0.1:%d" % port, config=botocore.config.Config(retries={"total_max_attempts": 1}))
try:
    c.get_item(TableName="claims", Key={"pk": {"S": "bench"}})
except Exception as e:
    assert "Could not connect" in str(e), e
entries = set()
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None) or ""
    if f.startswith(dist + "/"):
        entries.add(f[len(dist) + 1:].split("/")[0])
print("\n".join(sorted(entries)))
`

// TestPythonVendorsBoto3sClosure: what the bundle vendors is what boto3 loads from
// dist-packages, less the optional native modules it does without, plus s3transfer.
func TestPythonVendorsBoto3sClosure(t *testing.T) {
	needPython(t)
	out, err := exec.Command(pythonCommand, "-I", "-S", "-B", "-c", pythonClosure, pythonDistPackages).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var loaded []string
	for _, e := range strings.Fields(string(out)) {
		// An extension module's file (_cffi_backend.cpython-311-x86_64-linux-gnu.so) counts
		// as its module.
		name, _, _ := strings.Cut(e, ".cpython-")
		loaded = append(loaded, name)
	}
	var vendored []string
	for _, v := range pythonVendored {
		vendored = append(vendored, v.entry)
		assert.Contains(t, PythonDebianPackages, v.pkg, "%s's package", v.entry)
	}
	var want []string
	for _, e := range vendored {
		if e != "s3transfer" {
			want = append(want, e)
		}
	}
	for _, e := range pythonOptional {
		if slices.Contains(loaded, e) {
			want = append(want, e)
		}
	}
	sort.Strings(want)
	sort.Strings(loaded)
	assert.Equal(t, want, loaded, "entries of %s boto3 loaded; want the vendored ones (but s3transfer) and the optional ones present", pythonDistPackages)
}

// pythonTinyFunction writes a function folder with a module, its brokenx replacement, and a
// README that stays out of the bundle.
func pythonTinyFunction(t *testing.T) (root, pkg string) {
	t.Helper()
	root = t.TempDir()
	pkg = "fn"
	for name, text := range map[string]string{
		"handler.py":                    "import a\ndef handler(event, context):\n    return a.WHICH\n",
		"a.py":                          "WHICH = 'own'\n",
		"README.md":                     "not bundled\n",
		"broken/brokenx/a.py":           "WHICH = 'broken'\n",
		"broken/brokeny/zzz.py":         "WHICH = 'nothing to replace'\n",
		"__pycache__/a.cpython-311.pyc": "not bundled\n",
	} {
		p := filepath.Join(root, pkg, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return root, pkg
}

// TestPythonBuildTakesTheModulesTheBrokenBuildAndBoto3: the bundle is the function's modules,
// its broken build's replacement and the vendored packages, regular files only, no bytecode.
func TestPythonBuildTakesTheModulesTheBrokenBuildAndBoto3(t *testing.T) {
	needPython(t)
	root, pkg := pythonTinyFunction(t)
	taskRoot := t.TempDir()
	require.NoError(t, buildPython(root, pkg, X8664, []string{"brokenx"}, taskRoot))
	a, err := os.ReadFile(filepath.Join(taskRoot, "a.py"))
	require.NoError(t, err)
	assert.Equal(t, "WHICH = 'broken'\n", string(a), "a.py; want brokenx's")
	for _, gone := range []string{"README.md", "broken", "__pycache__", "certifi/cacert.pem"} {
		assert.NoFileExists(t, filepath.Join(taskRoot, gone))
		assert.NoDirExists(t, filepath.Join(taskRoot, gone))
	}
	for _, v := range pythonVendored {
		_, err := os.Stat(filepath.Join(taskRoot, v.entry))
		assert.NoError(t, err, "%s (from %s)", v.entry, v.pkg)
	}
	assert.FileExists(t, filepath.Join(taskRoot, "botocore", "cacert.pem"), "botocore's own bundle, its fallback")
	var rec PythonVendoredRecord
	b, err := os.ReadFile(filepath.Join(taskRoot, PythonRecord))
	require.NoError(t, err, "the bundle's record of what it vendors")
	require.NoError(t, json.Unmarshal(b, &rec), "%s: %s", PythonRecord, b)
	assert.NotEmpty(t, rec.Distribution, "%s's distribution", PythonRecord)
	for _, v := range pythonVendored {
		out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", v.pkg).Output()
		require.NoError(t, err, "dpkg-query -W %s", v.pkg)
		assert.Equal(t, string(out), rec.Packages[v.pkg], "%s's version in %s; want dpkg's", v.pkg, PythonRecord)
	}
	assert.Len(t, rec.Packages, len(pythonVendored), "packages recorded; want one for each vendored entry's (%v)", rec.Packages)
	assert.FileExists(t, filepath.Join(taskRoot, "botocore", "data", "dynamodb", "2012-08-10", "service-2.json"))
	err = filepath.WalkDir(taskRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == "__pycache__" || strings.HasSuffix(d.Name(), ".pyc") {
			t.Errorf("%s: bytecode in the bundle", path)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			t.Errorf("%s: a symbolic link in the bundle", path)
		}
		return nil
	})
	require.NoError(t, err)
	_, err = treeEntries(taskRoot)
	assert.NoError(t, err, "the bundle must be zippable")
}

// TestPythonBuildRefusesWhatItDoesNotKnow: an unknown build tag, a broken module that replaces
// nothing and a missing Debian package are refused, named.
func TestPythonBuildRefusesWhatItDoesNotKnow(t *testing.T) {
	root, pkg := pythonTinyFunction(t)
	err := buildPython(root, pkg, X8664, []string{"brokenz"}, t.TempDir())
	assert.ErrorContains(t, err, `"brokenz"`)
	assert.ErrorContains(t, err, "brokenx", "the error should list the known tags")
	err = buildPython(root, pkg, X8664, []string{"brokeny"}, t.TempDir())
	assert.ErrorContains(t, err, "zzz.py replaces no module")

	saved := pythonDistPackages
	t.Cleanup(func() { pythonDistPackages = saved })
	pythonDistPackages = t.TempDir()
	err = buildPython(root, pkg, X8664, nil, t.TempDir())
	assert.ErrorContains(t, err, "python3-boto3", "a missing package must be named")
}

// pythonImportsFromBundle is a script that imports boto3 as the function does from the bundle
// alone (-I -S: no dist-packages) and prints where each vendored module came from.
const pythonImportsFromBundle = `
import sys
sys.path.insert(0, sys.argv[1])
import boto3, botocore.httpsession, requests, urllib3, dateutil, jmespath, six, certifi, idna
for m in ("boto3", "botocore", "requests", "urllib3", "dateutil", "jmespath", "six", "certifi", "idna", "chardet", "charset_normalizer"):
    print(m, sys.modules[m].__file__)
print("OpenSSL", "OpenSSL" in sys.modules)
`

// TestPythonBundleIsWholeAndTheSameOnBothArchitectures builds the repository's function for
// both architectures (pure Python: the same files, whose folder is named by their digest) and
// imports boto3 from the bundle alone. The zip of the same files is the same bytes (Zip's own
// tests); the bundle is built unzipped, which spares compressing botocore's models twice.
func TestPythonBundleIsWholeAndTheSameOnBothArchitectures(t *testing.T) {
	needPython(t)
	start := time.Now()
	x86, err := Unzipped(pythonPkg, X8664)
	require.NoError(t, err)
	t.Logf("built %s in %v", pythonPkg, time.Since(start).Round(time.Millisecond))
	arm, err := Unzipped(pythonPkg, ARM64)
	require.NoError(t, err)
	assert.Equal(t, filepath.Base(strings.ReplaceAll(x86.Dir, "x86_64", "arm64")), filepath.Base(arm.Dir),
		"the arm64 bundle's folder %s; want the x86_64 one's digest, %s", arm.Dir, x86.Dir)
	assert.Equal(t, Python, x86.Language)
	assert.Equal(t, "handler.handler", x86.Handler)
	assert.Equal(t, Python311, x86.Runtime)

	out, err := exec.Command(pythonCommand, "-I", "-S", "-B", "-c", pythonImportsFromBundle, x86.Dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, file, _ := strings.Cut(line, " ")
		if name == "OpenSSL" {
			assert.Equal(t, "False", file, "pyOpenSSL imported; the bundle leaves it out")
			continue
		}
		assert.True(t, strings.HasPrefix(file, x86.Dir+string(filepath.Separator)), "%s from %s; want the bundle's", name, file)
	}
}
