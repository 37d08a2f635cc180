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

// hierarchy is the mounted cgroup hierarchy that has the cpu controller.
type hierarchy struct {
	version int    // 1 or 2
	root    string // where it is mounted: groups are made directly under it
}

func (h hierarchy) String() string { return fmt.Sprintf("v%d %s", h.version, h.root) }

// mount is the part of a /proc/self/mountinfo line this package needs.
type mount struct {
	point, fsType string
	superOpts     []string
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
				return hierarchy{2, m.point}, nil
			}
			if err != nil {
				seen = append(seen, fmt.Sprintf("cgroup v2 at %s: %v", m.point, err))
			} else {
				seen = append(seen, fmt.Sprintf("cgroup v2 at %s has controllers [%s], no cpu", m.point, strings.Join(ctrls, " ")))
			}
		case "cgroup":
			if v1 == nil && slices.Contains(m.superOpts, "cpu") {
				v1 = &hierarchy{1, m.point}
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

// usable checks that groups with a CPU quota can be made in h.
func usable(h hierarchy) error {
	if h.version == 1 {
		if _, err := os.Stat(filepath.Join(h.root, "cpu.cfs_quota_us")); err != nil {
			return fmt.Errorf("cgroup: %s has no cpu.cfs_quota_us: the kernel lacks CFS bandwidth control (CONFIG_CFS_BANDWIDTH): %v", h, err)
		}
	}
	const wOK = 2 // access(2)'s W_OK; it also reports a read-only mount (EROFS)
	if err := syscall.Access(h.root, wOK); err != nil {
		return fmt.Errorf("cgroup: %s is not writable by euid %d: %v; making a cgroup needs root or a delegated cgroup v2 subtree",
			h, os.Geteuid(), err)
	}
	return nil
}

// find is the hierarchy of this machine, without checking that groups can be made in it.
func find() (hierarchy, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return hierarchy{}, fmt.Errorf("cgroup: %v", err)
	}
	return detect(mi)
}

// Available says which cgroup hierarchy New uses ("v1 /sys/fs/cgroup/cpu", "v2
// /sys/fs/cgroup") or, as the error, exactly why no group with a CPU quota can be made here (no
// cpu controller mounted, no CFS bandwidth control in the kernel, not writable), for t.Skip.
func Available() (string, error) {
	h, err := find()
	if err == nil {
		err = usable(h)
	}
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// enableCPU makes the cpu controller available to the children of a v2 root (writing +cpu to
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
