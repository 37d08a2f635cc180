package cgroup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// hierarchy is the mounted cgroup hierarchy that has the cpu controller, and where in it this
// process makes its groups.
type hierarchy struct {
	version int    // 1 or 2
	root    string // where it is mounted
	// mountRoot is the mount's root inside the hierarchy (mountinfo's fourth field): "/" unless
	// a cgroup namespace or a bind mount shows only a subtree.
	mountRoot string
	// parent is the directory the groups are made in: root, where this process may write
	// there, else the subtree delegated to it (see place).
	parent string
	// home takes a removed group's remaining members: "" for the groups' parent, which at the
	// root may hold processes beside its children; in a delegated subtree this process's own
	// group, a leaf there, since cgroup v2 refuses processes to a group that gives its children
	// a controller (EBUSY), as the delegated parent does once New enabled cpu in it.
	home string
}

func (h hierarchy) String() string {
	switch h.parent {
	case "":
		return fmt.Sprintf("v%d %s", h.version, h.root)
	case h.root:
		return fmt.Sprintf("v%d %s, groups at its root", h.version, h.root)
	}
	return fmt.Sprintf("v%d %s, groups in the subtree delegated at %s", h.version, h.root, h.parent)
}

// mount is the part of a /proc/self/mountinfo line this package needs.
type mount struct {
	root, point, fsType string
	superOpts           []string
}

// parseMountinfo reads the mounts in a mountinfo file: "id parent major:minor root point
// options [optional fields...] - fstype source super-options".
func parseMountinfo(data []byte) []mount {
	var mounts []mount
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" && i >= 6 {
				sep = i
				break
			}
		}
		if sep < 0 || len(fields) < sep+4 {
			continue
		}
		mounts = append(mounts, mount{
			root:      unescapeMountinfo(fields[3]),
			point:     unescapeMountinfo(fields[4]),
			fsType:    fields[sep+1],
			superOpts: strings.Split(fields[sep+3], ","),
		})
	}
	return mounts
}

// unescapeMountinfo undoes the octal escapes (\040 for a space) the kernel writes in paths.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// words reads a file of space-separated words, such as cgroup.controllers.
func words(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	return strings.Fields(string(b)), err
}

// detect picks the hierarchy with the cpu controller out of mountinfo: v2 where its
// cgroup.controllers lists cpu, else the v1 hierarchy mounted with the cpu option. When there is
// none, the error lists what there is, so that a skipped test says what is missing.
func detect(mountinfo []byte) (hierarchy, error) {
	var v1 *hierarchy
	var seen []string
	for _, m := range parseMountinfo(mountinfo) {
		switch m.fsType {
		case "cgroup2":
			ctrls, err := words(filepath.Join(m.point, "cgroup.controllers"))
			if err == nil && slices.Contains(ctrls, "cpu") {
				return hierarchy{version: 2, root: m.point, mountRoot: m.root}, nil
			}
			if err != nil {
				seen = append(seen, fmt.Sprintf("cgroup v2 at %s: %v", m.point, err))
			} else {
				seen = append(seen, fmt.Sprintf("cgroup v2 at %s has controllers [%s], no cpu", m.point, strings.Join(ctrls, " ")))
			}
		case "cgroup":
			if v1 == nil && slices.Contains(m.superOpts, "cpu") {
				v1 = &hierarchy{version: 1, root: m.point, mountRoot: m.root}
			}
		}
	}
	if v1 != nil {
		return *v1, nil
	}
	if len(seen) == 0 {
		return hierarchy{}, errors.New("cgroup: no cgroup filesystem with the cpu controller is mounted (none in /proc/self/mountinfo)")
	}
	return hierarchy{}, fmt.Errorf("cgroup: no cgroup hierarchy has the cpu controller: %s; no cgroup v1 hierarchy is mounted with cpu",
		strings.Join(seen, "; "))
}

// machine is what place needs to know of this process and its files, faked in tests.
type machine struct {
	euid int
	// writable is nil when this process may write path (a group's directory: make a child in
	// it; a file: write it).
	writable func(path string) error
}

// wOK is access(2)'s W_OK; it also reports a read-only mount (EROFS).
const wOK = 2

// thisMachine is this process's view of the machine: access(2) decides writability, as the
// kernel decides a write.
func thisMachine() machine {
	return machine{euid: os.Geteuid(), writable: func(path string) error { return syscall.Access(path, wOK) }}
}

// place decides where h's groups are made, given this process's /proc/self/cgroup:
//   - at the hierarchy's root, where this process may write there (root, as on this
//     repository's machine);
//   - else in the subtree the system delegates to it, as rootless container engines use it: the
//     nearest group, from this process's own up, whose directory and cgroup.procs (and, on v2,
//     cgroup.subtree_control) it may write and, on v2, whose children can have the cpu
//     controller: it has cpu in cgroup.subtree_control already, or has it in cgroup.controllers
//     and holds no process, so that +cpu can be written. v2's no-internal-processes rule
//     refuses a controller to the children of a group that has members of its own, so this
//     process's own group, which holds it and usually its shell, is passed over for its parent
//     (systemd-run --user --scope -p Delegate=yes: the scope holds the processes, its slice
//     gives the controller). A process moved from its own group into one made there stays
//     inside the delegated subtree, which is what the kernel requires of a move by a user who
//     is not root.
//
// Where there is neither, the error says what each group up from this process's own lacked and
// what to run instead.
func place(h hierarchy, selfCgroup []byte, m machine) (hierarchy, error) {
	if h.version == 1 {
		if _, err := os.Stat(filepath.Join(h.root, "cpu.cfs_quota_us")); err != nil {
			return h, fmt.Errorf("cgroup: %s has no cpu.cfs_quota_us: the kernel lacks CFS bandwidth control (CONFIG_CFS_BANDWIDTH): %v", h, err)
		}
	}
	rootErr := m.writable(h.root)
	if rootErr == nil {
		h.parent = h.root
		return h, nil
	}
	own, err := ownGroup(h, selfCgroup)
	if err != nil {
		return h, fmt.Errorf("cgroup: %s is not writable by euid %d (%v), and this process's own group in it is unknown (%v): %s",
			h, m.euid, rootErr, err, instead(h))
	}
	var why []string
	for dir := own; strings.HasPrefix(dir, h.root+"/"); dir = filepath.Dir(dir) {
		reason := delegated(h.version, dir, m)
		if reason == "" {
			h.parent, h.home = dir, own
			return h, nil
		}
		why = append(why, dir+" "+reason)
	}
	if len(why) == 0 {
		why = append(why, "this process is in the root group "+own)
	}
	return h, fmt.Errorf("cgroup: %s is not writable by euid %d (%v), and no subtree of it is delegated to this process: %s; %s",
		h, m.euid, rootErr, strings.Join(why, "; "), instead(h))
}

// delegated says why groups cannot be made in dir for this process, or "" if they can (see
// place).
func delegated(version int, dir string, m machine) string {
	files := []string{"", "cgroup.procs"}
	if version == 2 {
		files = append(files, "cgroup.subtree_control")
	}
	for _, f := range files {
		if err := m.writable(filepath.Join(dir, f)); err != nil {
			return fmt.Sprintf("is not writable by euid %d (%v)", m.euid, err)
		}
	}
	if version == 1 {
		return ""
	}
	ctrls, err := words(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return err.Error()
	}
	if !slices.Contains(ctrls, "cpu") {
		return fmt.Sprintf("has no cpu controller (cgroup.controllers: [%s])", strings.Join(ctrls, " "))
	}
	sub, err := words(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return err.Error()
	}
	if slices.Contains(sub, "cpu") {
		return ""
	}
	members, err := procs(dir)
	if err != nil {
		return err.Error()
	}
	if len(members) > 0 {
		return fmt.Sprintf("holds %d processes of its own and does not give its children the cpu controller (cgroup v2 gives none to the children of a group with members)", len(members))
	}
	return ""
}

// ownGroup is the directory of this process's group in h, from /proc/self/cgroup's lines
// "id:controllers:path": v2's is "0::path", v1's the one whose controllers include cpu. The path
// is relative to the hierarchy's root, which the mount may show only part of (mountRoot).
func ownGroup(h hierarchy, selfCgroup []byte) (string, error) {
	for _, line := range strings.Split(string(selfCgroup), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if h.version == 2 && parts[0] == "0" && parts[1] == "" ||
			h.version == 1 && slices.Contains(strings.Split(parts[1], ","), "cpu") {
			rel, ok := strings.CutPrefix(parts[2], strings.TrimSuffix(h.mountRoot, "/"))
			if !ok || rel != "" && !strings.HasPrefix(rel, "/") {
				return "", fmt.Errorf("/proc/self/cgroup puts this process at %s, outside the mount's root %s", parts[2], h.mountRoot)
			}
			return filepath.Join(h.root, rel), nil
		}
	}
	return "", fmt.Errorf("/proc/self/cgroup has no line for the cgroup v%d hierarchy with cpu", h.version)
}

// instead is what a user can run where no group can be made in h.
func instead(h hierarchy) string {
	if h.version == 2 {
		return "to have a CPU quota, run the tests as root (sudo), or in a subtree that systemd delegates to you: " +
			"tools/delegate.sh make test (or go test ...), which starts them in a scope of your user's systemd " +
			"(systemd-run --user --scope -p Delegate=yes), else through sudo in a service with Delegate=yes"
	}
	return fmt.Sprintf("to have a CPU quota, run the tests as root (sudo), or have root give you a group of the cpu hierarchy "+
		"and run them from a shell in it: sudo mkdir %[1]s/$USER && sudo chown -R $USER %[1]s/$USER && echo $$ | sudo tee %[1]s/$USER/cgroup.procs",
		h.root)
}

// Available says which cgroup hierarchy New uses and how its groups are made there: "v1
// /sys/fs/cgroup/cpu, groups at its root" (as root), "v2 /sys/fs/cgroup, groups in the subtree
// delegated at /sys/fs/cgroup/user.slice/.../app.slice" (to this user). Its error
// says exactly why no group with a CPU quota can be made here (not Linux, no cpu controller
// mounted, no CFS bandwidth control in the kernel, neither the root nor a delegated subtree
// writable) and what to run instead, for t.Skip.
func Available() (string, error) {
	h, err := find()
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// DescribeMachine is Available's answer for a result's environment: which hierarchy and how its quota
// is made, or "none: " and why not.
func DescribeMachine() string {
	where, err := Available()
	if err != nil {
		return "none: " + err.Error()
	}
	return where
}

// enableCPU makes the cpu controller available to the children of a v2 group (writing +cpu to
// its cgroup.subtree_control), as systemd usually has already. It is left enabled: other
// groups may rely on it.
func enableCPU(root string) error {
	file := filepath.Join(root, "cgroup.subtree_control")
	ctrls, err := words(file)
	if err != nil {
		return fmt.Errorf("cgroup: %w", err)
	}
	if slices.Contains(ctrls, "cpu") {
		return nil
	}
	if err := writeFile(file, "+cpu"); err != nil {
		return fmt.Errorf("cgroup: enable the cpu controller for the children of %s: %w", root, err)
	}
	return nil
}
