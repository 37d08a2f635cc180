package lambdazip

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/harness/sys/build"
)

// The layout of a Node function's folder (functions/getitem-node) that buildNode reads.
const (
	// nodeBrokenDir holds one folder per broken build, named by its build tag, with the files
	// that replace the function's own in that build (broken/brokentrace/attach.mjs replaces
	// attach.mjs).
	nodeBrokenDir = "broken"
	// nodeModulesDir is where npm installs the dependencies, in the folder (a developer's
	// npm install) and in the task root (the bundle's).
	nodeModulesDir = "node_modules"
	// nodeLockfile pins every dependency, with its integrity hash; npm ci installs exactly it.
	nodeLockfile = "package-lock.json"
)

// nodeLeftOut are the names in a Node function's folder that are not the function's: its
// dependencies as a developer installed them (the bundle's come from the lockfile), its broken
// builds' replacements, what only a reader of the folder needs, and the function's own tests
// (test/, run by `npm test`) and linter configuration (eslint.config.mjs, `npm run lint`),
// whose tools are devDependencies that the bundle's `npm ci --omit=dev` leaves out too.
var nodeLeftOut = []string{nodeModulesDir, nodeBrokenDir, "README.md", ".gitignore", "test", "eslint.config.mjs"}

// nodeModulesCache is the shared cache (sharedCache) that holds one npm ci per package.json and
// lockfile, named by their hash: the dependencies are installed once on a machine, whichever
// checkout asks, and each bundle copies them.
const nodeModulesCache = "node_modules"

// errNodeNoNPM names what to install when npm is missing.
var errNodeNoNPM = errors.New("npm is not on PATH: install Node.js and npm (apt-get install npm)")

// buildNode is Node's builder: the function's own files (every file of pkg but nodeLeftOut)
// into taskRoot, then each broken build's replacements over them, then the dependencies, as
// `npm ci --omit=dev --ignore-scripts` installs them from the lockfile, into
// taskRoot/node_modules. The function is plain JavaScript (no install scripts run, no native
// module is built), so arch changes nothing in the bundle; it depends on the folder's files and
// the lockfile's packages only.
func buildNode(root, pkg string, arch Arch, tags []string, taskRoot string) error {
	src := filepath.Join(root, filepath.FromSlash(pkg))
	known, err := nodeBrokenBuilds(src)
	if err != nil {
		return err
	}
	if err := tagsKnown(Node, tags, known...); err != nil {
		return err
	}
	if err := nodeCopyTree(src, taskRoot, func(rel string) bool { return slices.Contains(nodeLeftOut, rel) }); err != nil {
		return err
	}
	replaced := map[string]string{}
	for _, tag := range tags {
		if err := nodeApplyBroken(filepath.Join(src, nodeBrokenDir, tag), taskRoot, tag, replaced); err != nil {
			return err
		}
	}
	modules, err := nodeModules(root, src)
	if err != nil {
		return err
	}
	return nodeCopyTree(modules, filepath.Join(taskRoot, nodeModulesDir), nil)
}

// nodeBrokenBuilds lists the broken builds a Node function's folder has: the folders under
// its broken/.
func nodeBrokenBuilds(src string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(src, nodeBrokenDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var tags []string
	for _, e := range entries {
		if e.IsDir() {
			tags = append(tags, e.Name())
		}
	}
	return tags, nil
}

// nodeApplyBroken copies the broken build tag's replacements, in dir, over taskRoot. Each must
// replace a file of the function (a new file would be a misnamed replacement, which would
// leave the build unbroken), and no two builds may replace the same file; replaced maps each
// replaced file to the tag that replaced it.
func nodeApplyBroken(dir, taskRoot, tag string, replaced map[string]string) error {
	return nodeCopyTree(dir, taskRoot, nil, func(rel string) error {
		if _, err := os.Stat(filepath.Join(taskRoot, rel)); err != nil {
			return fmt.Errorf("broken build %s: %s replaces no file of the function", tag, filepath.ToSlash(rel))
		}
		if other, ok := replaced[rel]; ok {
			return fmt.Errorf("broken builds %s and %s both replace %s", other, tag, filepath.ToSlash(rel))
		}
		replaced[rel] = tag
		return nil
	})
}

// nodeModules returns the folder holding the node_modules that `npm ci` installs from src's
// package.json and lockfile, installing it into nodeModulesCache unless it is there already.
// npm runs under build.Run's lock for "node", so that test binaries building at once install
// one after the other; a cache folder is renamed into place whole, so a reader never sees half
// of one.
func nodeModules(root, src string) (string, error) {
	manifest, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		return "", err
	}
	lock, err := os.ReadFile(filepath.Join(src, nodeLockfile))
	if err != nil {
		return "", fmt.Errorf("%w: the lockfile pins the bundle's dependencies (npm install writes it)", err)
	}
	h := sha256.New()
	h.Write(manifest)
	h.Write([]byte{0})
	h.Write(lock)
	key := hex.EncodeToString(h.Sum(nil))[:16]
	cache, err := sharedCache(nodeModulesCache)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, key)
	modules := filepath.Join(dir, nodeModulesDir)
	if _, err := os.Stat(modules); err == nil {
		return modules, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errNodeNoNPM
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cache, "."+key+".*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	for name, data := range map[string][]byte{"package.json": manifest, nodeLockfile: lock} {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			return "", err
		}
	}
	// --ignore-scripts: no package's install script runs on this machine (nor would it on
	// Lambda's); --omit=dev: only what the function imports.
	cmd := exec.Command(npm, "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", tmp)
	cmd.Dir = tmp
	if out, err := build.Run("node", cmd); err != nil {
		return "", fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	installed := filepath.Join(tmp, nodeModulesDir)
	// A package of no dependencies gets no node_modules from npm; its bundle gets an empty one.
	if err := os.MkdirAll(installed, 0o755); err != nil {
		return "", err
	}
	// npm's links to its packages' executables, and its record of the install (which names
	// where each package was downloaded from): neither is the function's, and a bundle holds
	// regular files only.
	for _, name := range []string{".bin", ".package-lock.json"} {
		if err := os.RemoveAll(filepath.Join(installed, name)); err != nil {
			return "", err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(modules); statErr == nil {
			return modules, nil // another test binary installed the same lockfile meanwhile
		}
		return "", err
	}
	return modules, nil
}

// nodeCopyTree copies every regular file under src to the same path under dst, with the mode
// Lambda needs (executable where any x bit is set), skipping the paths leave says to leave
// out (relative to src, slash-separated), and calling each check first with the file's
// relative path. A symbolic link or other special file is refused, named.
func nodeCopyTree(src, dst string, leave func(rel string) bool, check ...func(rel string) error) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if rel == "." {
			return os.MkdirAll(dst, 0o755)
		}
		if leave != nil && leave(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: %v; want regular files only in a bundle", path, d.Type())
		}
		for _, c := range check {
			if err := c(rel); err != nil {
				return err
			}
		}
		return copyFile(path, filepath.Join(dst, rel))
	})
}
