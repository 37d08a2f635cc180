package lambdazip

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/repo"
)

// nodePkg is the repository's Node function.
const nodePkg = "functions/getitem-node"

// writeFiles writes files (slash-separated paths to contents) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
}

// tinyNode is a Node function of no dependencies, so that npm ci needs no registry.
var tinyNode = map[string]string{
	"package.json":                  `{"name":"tiny","private":true}` + "\n",
	"package-lock.json":             `{"name":"tiny","lockfileVersion":3,"requires":true,"packages":{"":{"name":"tiny"}}}` + "\n",
	"index.mjs":                     "export async function handler() { return 1; }\n",
	"attach.mjs":                    "export const traced = true;\n",
	"README.md":                     "# tiny\n",
	".gitignore":                    "node_modules/\n",
	"eslint.config.mjs":             "export default [];\n",
	"test/index.test.mjs":           "import \"node:test\";\n",
	"node_modules/left/out.js":      "a developer's install, not the bundle's\n",
	"broken/brokentrace/attach.mjs": "export const traced = false;\n",
}

func needNPM(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH")
	}
}

// TestNodeBuildTakesTheFunctionsFilesAndItsBrokenBuild: the function's own files, the broken
// build's replacement over them, none of what only a reader of the folder needs.
func TestNodeBuildTakesTheFunctionsFilesAndItsBrokenBuild(t *testing.T) {
	needNPM(t)
	root := t.TempDir()
	writeFiles(t, filepath.Join(root, "fn"), tinyNode)
	for _, tags := range [][]string{nil, {"brokentrace"}} {
		taskRoot := filepath.Join(t.TempDir(), "task")
		require.NoError(t, buildNode(root, "fn", X8664, tags, taskRoot))
		attach, err := os.ReadFile(filepath.Join(taskRoot, "attach.mjs"))
		require.NoError(t, err)
		want := tinyNode["attach.mjs"]
		if len(tags) > 0 {
			want = tinyNode["broken/brokentrace/attach.mjs"]
		}
		assert.Equal(t, want, string(attach), "attach.mjs with tags %v", tags)
		for _, gone := range []string{"README.md", ".gitignore", "eslint.config.mjs", "test", "broken", "node_modules/left"} {
			assert.NoFileExists(t, filepath.Join(taskRoot, gone), "tags %v", tags)
			assert.NoDirExists(t, filepath.Join(taskRoot, gone), "tags %v", tags)
		}
		for _, kept := range []string{"index.mjs", "package.json", "package-lock.json"} {
			assert.FileExists(t, filepath.Join(taskRoot, kept), "tags %v", tags)
		}
		assert.DirExists(t, filepath.Join(taskRoot, "node_modules"))
	}
}

// TestNodeBuildRefusesWhatItDoesNotKnow: an unknown tag is named with the known ones, and a
// replacement that replaces nothing (a misnamed file, which would leave the build unbroken) is
// refused, named.
func TestNodeBuildRefusesWhatItDoesNotKnow(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	err = buildNode(root, nodePkg, X8664, []string{"brokenfoo"}, t.TempDir())
	require.Error(t, err)
	for _, name := range []string{"brokenfoo", "brokentrace", "brokenwarmup", "brokenwarmclient"} {
		assert.Contains(t, err.Error(), name)
	}

	needNPM(t)
	stray := t.TempDir()
	files := map[string]string{"broken/brokentrace/atach.mjs": "export const traced = false;\n"}
	for k, v := range tinyNode {
		if !strings.HasPrefix(k, "broken/") {
			files[k] = v
		}
	}
	writeFiles(t, filepath.Join(stray, "fn"), files)
	err = buildNode(stray, "fn", X8664, []string{"brokentrace"}, filepath.Join(t.TempDir(), "task"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "atach.mjs")
}

// TestNodeBundleIsReproducible builds the repository's Node function twice into different
// folders and wants the very same bytes, holding the handler's module and the SDK, and no
// broken build's files, tests, linter configuration or development dependencies.
func TestNodeBundleIsReproducible(t *testing.T) {
	needNPM(t)
	root, err := repo.Root()
	require.NoError(t, err)
	var zips [2]Package
	for i := range zips {
		zips[i], err = buildBundle(root, t.TempDir(), "node", nodePkg, Node, X8664, nil, true)
		require.NoError(t, err)
	}
	a, err := zips[0].Bytes()
	require.NoError(t, err)
	b, err := zips[1].Bytes()
	require.NoError(t, err)
	assert.True(t, bytes.Equal(a, b), "second build = %s; want the first's %s", zips[1].SHA256, zips[0].SHA256)
	zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	require.NoError(t, err)
	names := map[string]bool{}
	for _, f := range zr.File {
		names[f.Name] = true
		assert.False(t, strings.HasPrefix(f.Name, "broken/"), "entry %s; want no broken build's file", f.Name)
		assert.False(t, strings.HasPrefix(f.Name, "node_modules/.bin/"), "entry %s; want no npm links", f.Name)
		assert.False(t, strings.HasPrefix(f.Name, "test/"), "entry %s; want no test", f.Name)
		for _, dev := range []string{"node_modules/eslint/", "node_modules/@eslint/", "node_modules/globals/"} {
			assert.False(t, strings.HasPrefix(f.Name, dev), "entry %s; want no development dependency", f.Name)
		}
	}
	assert.False(t, names["eslint.config.mjs"], "entry eslint.config.mjs; want no linter configuration")
	for _, want := range []string{"index.mjs", "attach.mjs", "node_modules/@aws-sdk/client-dynamodb/package.json", "node_modules/@smithy/node-http-handler/package.json"} {
		assert.True(t, names[want], "entry %s missing", want)
	}
}
