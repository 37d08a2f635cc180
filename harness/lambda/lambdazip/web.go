package lambdazip

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The Web Function code bundles: the Node probe alone, and the Go probe beside the Node launcher
// that starts it (a Web Function runs nodejs24.x only).
const (
	NodeProbeBundle = "node-probe"
	GoProbeBundle   = "go-probe"
)

// WebBundles are the bundles' names, in the order cmd/package writes them.
var WebBundles = []string{NodeProbeBundle, GoProbeBundle}

// The probes' sources, repository-relative.
const (
	nodeProbeDir = "testdata/probes/node"
	goProbeDir   = "testdata/probes/go"
)

// BuildWeb builds the Web Function bundle name (NodeProbeBundle or GoProbeBundle) into
// .cache/lambdazip/web-<name>.zip, once per process, byte-for-byte reproducible like Build. The
// Go probe is built for arm64, the only architecture Web Functions run.
func BuildWeb(name string) (Package, error) {
	return cached("web|"+name, func(root string) (Package, error) {
		return buildWeb(root, filepath.Join(root, ".cache", "lambdazip"), name)
	})
}

// buildWeb does BuildWeb's work without the cache, into dir/web-<name>.zip.
func buildWeb(root, dir, name string) (Package, error) {
	if !slices.Contains(WebBundles, name) {
		return Package{}, fmt.Errorf("web bundle %q: want %q or %q", name, NodeProbeBundle, GoProbeBundle)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Package{}, err
	}
	tmp, err := os.MkdirTemp(dir, ".web-"+name+".*")
	if err != nil {
		return Package{}, err
	}
	defer os.RemoveAll(tmp)
	var entries []Entry
	src := nodeProbeDir
	switch name {
	case NodeProbeBundle:
		entries = []Entry{{Name: "index.js", Mode: 0o644, Path: filepath.Join(root, nodeProbeDir, "index.js")}}
	case GoProbeBundle:
		src = goProbeDir
		bin := filepath.Join(tmp, "probe")
		if err := goBuild(root, bin, goProbeDir, ARM64, ""); err != nil {
			return Package{}, err
		}
		// The launcher finds the binary as `probe` beside itself.
		entries = []Entry{
			{Name: "index.js", Mode: 0o644, Path: filepath.Join(root, goProbeDir, "index.js")},
			{Name: "probe", Mode: 0o755, Path: bin},
		}
	}
	data, err := Zip(entries)
	if err != nil {
		return Package{}, fmt.Errorf("zipping web bundle %s: %w", name, err)
	}
	return place(tmp, dir, "web-"+name+".zip", data, ARM64, src)
}
