package cgroup

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewRefusesBadSettingsByName needs no cgroup: settings are checked before the machine is.
func TestNewRefusesBadSettingsByName(t *testing.T) {
	cpus := runtime.NumCPU()
	cases := []struct {
		name string
		q    Quota
		want string
	}{
		{"share 0", Quota{Share: 0}, "Quota.Share = 0: want more than 0"},
		{"negative share", Quota{Share: -0.5}, "Quota.Share = -0.5"},
		{"share NaN", Quota{Share: math.NaN()}, "Quota.Share = NaN"},
		{"share above the cores", Quota{Share: float64(cpus) + 0.5}, fmt.Sprintf("Quota.Share = %g: want more than 0 and at most %d", float64(cpus)+0.5, cpus)},
		{"negative period", Quota{Share: 0.1, Period: -time.Millisecond}, "Quota.Period = -1ms: want whole microseconds from 1ms to 1s"},
		{"period below 1ms", Quota{Share: 0.1, Period: 500 * time.Microsecond}, "Quota.Period = 500µs"},
		{"period above 1s", Quota{Share: 0.1, Period: 2 * time.Second}, "Quota.Period = 2s"},
		{"period in nanoseconds", Quota{Share: 0.1, Period: 10*time.Millisecond + 1}, "Quota.Period = 10.000001ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := New(t, "bad", c.q)
			assert.Nil(t, g)
			assert.ErrorContains(t, err, c.want)
		})
	}
	for _, name := range []string{"", "a/b", "../x", "with space", strings.Repeat("x", 65)} {
		_, err := New(t, name, Quota{Share: 0.1})
		assert.ErrorContains(t, err, fmt.Sprintf("name = %q: want", name))
	}
	assert.Empty(t, Live(), "a refused New left a group")
}

func TestQuotaSettings(t *testing.T) {
	q128, err := (Quota{Share: 128.0 / 1769}).normalize()
	require.NoError(t, err)
	assert.Equal(t, DefaultPeriod, q128.Period, "a zero Period")
	assert.Equal(t, []setting{{"cpu.cfs_period_us", "100000"}, {"cpu.cfs_quota_us", "7236"}, {"cpu.shares", "262144"}}, quotaSettings(1, q128))
	assert.Equal(t, []setting{{"cpu.max", "7236 100000"}, {"cpu.weight", "10000"}}, quotaSettings(2, q128))

	q := Quota{Share: 0.5, Period: 20 * time.Millisecond}
	assert.Equal(t, []setting{{"cpu.cfs_period_us", "20000"}, {"cpu.cfs_quota_us", "10000"}, {"cpu.shares", "262144"}}, quotaSettings(1, q))
	assert.Equal(t, []setting{{"cpu.max", "10000 20000"}, {"cpu.weight", "10000"}}, quotaSettings(2, q))
}

// TestDetect points fake mountinfo lines at temporary directories that stand for the
// hierarchies, so that the choice between v1 and v2 is tested on any machine.
func TestDetect(t *testing.T) {
	dir := t.TempDir()
	fake := func(name, controllers string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(p, 0o755))
		if controllers != "" {
			require.NoError(t, os.WriteFile(filepath.Join(p, "cgroup.controllers"), []byte(controllers+"\n"), 0o644))
		}
		return p
	}
	v2cpu := fake("v2cpu", "cpuset cpu io memory pids")
	v2none := fake("v2none", "hugetlb")
	v1 := fake("v1 cpu", "")
	v2line := func(p string) string {
		return "41 31 0:38 / " + p + " rw,nosuid,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
	}
	v1cpu := "32 31 0:29 / " + strings.ReplaceAll(v1, " ", `\040`) + " rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
	v1mem := "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	tmpfs := "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"

	cases := []struct {
		name      string
		mountinfo string
		want      hierarchy
		wantErr   []string
	}{
		{"v2 with cpu wins over v1", tmpfs + v1cpu + v2line(v2cpu), hierarchy{version: 2, root: v2cpu, mountRoot: "/"}, nil},
		{"v2 without cpu: v1", tmpfs + v1cpu + v1mem + v2line(v2none), hierarchy{version: 1, root: v1, mountRoot: "/"}, nil},
		{"no cpu anywhere", tmpfs + v1mem + v2line(v2none), hierarchy{},
			[]string{"cgroup v2 at " + v2none + " has controllers [hugetlb], no cpu", "no cgroup v1 hierarchy is mounted with cpu"}},
		{"no cgroup at all", tmpfs, hierarchy{}, []string{"no cgroup filesystem with the cpu controller is mounted"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := detect([]byte(c.mountinfo))
			for _, w := range c.wantErr {
				assert.ErrorContains(t, err, w)
			}
			if c.wantErr == nil {
				assert.NoError(t, err)
			}
			assert.Equal(t, c.want, h, "hierarchy = %v; want %v", h, c.want)
		})
	}
}

func TestOwner(t *testing.T) {
	cases := []struct {
		base string
		pid  int
		ok   bool
	}{
		{"claims-probe-123-4", 123, true},
		{"claims-go-probe-123-4", 123, true},
		{"claims-123-4", 0, false}, // no name
		{"claims-probe-x-4", 0, false},
		{"claims-probe-123-", 0, false},
		{"claims-probe-0-1", 0, false},
	}
	for _, c := range cases {
		pid, ok := owner(c.base)
		assert.Equal(t, c.ok, ok, "owner(%q) ok = %v; want %v", c.base, ok, c.ok)
		assert.Equal(t, c.pid, pid, "owner(%q) = %d; want %d", c.base, pid, c.pid)
	}
}

// TestPlace builds fake hierarchies in temporary directories, with fake /proc/self/cgroup
// contents and a fake of what this process may write, so that where groups go (the root, a
// delegated subtree, nowhere) is tested on any machine, as any user.
func TestPlace(t *testing.T) {
	// group makes a fake group dir under root with its controllers, enabled controllers and
	// members (v2's files; v1 groups have only cgroup.procs).
	group := func(t *testing.T, root, rel, controllers, subtree, members string) string {
		t.Helper()
		dir := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for f, v := range map[string]string{"cgroup.controllers": controllers, "cgroup.subtree_control": subtree, "cgroup.procs": members} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644))
		}
		return dir
	}
	// writableUnder fakes a user who may write the given groups and everything in them.
	writableUnder := func(dirs ...string) machine {
		return machine{euid: 1000, writable: func(path string) error {
			for _, d := range dirs {
				if path == d || strings.HasPrefix(path, d+"/") {
					return nil
				}
			}
			return syscall.EACCES
		}}
	}
	const user = "user.slice/user-1000.slice/user@1000.service"

	t.Run("v2 as root: the root", func(t *testing.T) {
		root := t.TempDir()
		h, err := place(hierarchy{version: 2, root: root, mountRoot: "/"}, []byte("0::/user.slice\n"), writableUnder(root))
		require.NoError(t, err)
		assert.Equal(t, root, h.parent)
		assert.Equal(t, "v2 "+root+", groups at its root", h.String())
	})
	t.Run("v2 in a delegated scope: its slice, which gives the scope cpu", func(t *testing.T) {
		root := t.TempDir()
		group(t, root, user, "cpu memory pids", "cpu memory pids", "")
		slice := group(t, root, user+"/app.slice", "cpu memory pids", "cpu memory pids", "")
		group(t, root, user+"/app.slice/run-r1.scope", "cpu memory pids", "", "123\n456\n")
		h, err := place(hierarchy{version: 2, root: root, mountRoot: "/"}, []byte("0::/"+user+"/app.slice/run-r1.scope\n"),
			writableUnder(filepath.Join(root, user)))
		require.NoError(t, err)
		assert.Equal(t, slice, h.parent, "where groups are made")
		assert.Equal(t, "v2 "+root+", groups in the subtree delegated at "+slice, h.String())
	})
	t.Run("v2 delegated group with no members: cpu can be enabled there", func(t *testing.T) {
		root := t.TempDir()
		svc := group(t, root, user, "cpu memory pids", "memory pids", "")
		group(t, root, user+"/init.scope", "memory pids", "", "77\n")
		h, err := place(hierarchy{version: 2, root: root, mountRoot: "/"}, []byte("0::/"+user+"/init.scope\n"), writableUnder(svc))
		require.NoError(t, err)
		assert.Equal(t, svc, h.parent)
	})
	t.Run("v2 login session, nothing delegated: skip, naming what to run", func(t *testing.T) {
		root := t.TempDir()
		group(t, root, "user.slice/user-1000.slice", "cpu memory pids", "cpu memory pids", "")
		scope := group(t, root, "user.slice/user-1000.slice/session-3.scope", "cpu memory pids", "", "99\n")
		_, err := place(hierarchy{version: 2, root: root, mountRoot: "/"}, []byte("0::/user.slice/user-1000.slice/session-3.scope\n"), writableUnder())
		require.Error(t, err)
		assert.ErrorContains(t, err, "v2 "+root+" is not writable by euid 1000")
		assert.ErrorContains(t, err, scope+" is not writable by euid 1000")
		assert.ErrorContains(t, err, "run the tests as root (sudo), or in a subtree that systemd delegates to you: tools/delegate.sh make test")
	})
	t.Run("v2 delegated but every group has members and no cpu for its children", func(t *testing.T) {
		root := t.TempDir()
		svc := group(t, root, user, "cpu memory pids", "", "1\n")
		_, err := place(hierarchy{version: 2, root: root, mountRoot: "/"}, []byte("0::/"+user+"\n"), writableUnder(svc))
		assert.ErrorContains(t, err, svc+" holds 1 processes of its own and does not give its children the cpu controller")
		assert.ErrorContains(t, err, "tools/delegate.sh make test")
	})
	t.Run("v2 delegated without the cpu controller", func(t *testing.T) {
		root := t.TempDir()
		svc := group(t, root, user, "memory pids", "memory pids", "")
		_, err := place(hierarchy{version: 2, root: root, mountRoot: "/"}, []byte("0::/"+user+"\n"), writableUnder(svc))
		assert.ErrorContains(t, err, svc+" has no cpu controller (cgroup.controllers: [memory pids])")
	})
	t.Run("v2 mount showing a subtree (cgroup namespace)", func(t *testing.T) {
		root := t.TempDir()
		scope := group(t, root, "app.slice", "cpu", "cpu", "")
		group(t, root, "app.slice/x.scope", "cpu", "", "5\n")
		h, err := place(hierarchy{version: 2, root: root, mountRoot: "/" + user}, []byte("0::/"+user+"/app.slice/x.scope\n"), writableUnder(scope))
		require.NoError(t, err)
		assert.Equal(t, scope, h.parent)
		_, err = place(hierarchy{version: 2, root: root, mountRoot: "/" + user}, []byte("0::/elsewhere\n"), writableUnder(scope))
		assert.ErrorContains(t, err, "/proc/self/cgroup puts this process at /elsewhere, outside the mount's root /"+user)
	})
	v1root := func(t *testing.T) string {
		t.Helper()
		root := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(root, "cpu.cfs_quota_us"), []byte("-1\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(root, "cgroup.procs"), nil, 0o644))
		return root
	}
	const v1self = "4:memory:/user.slice\n2:cpu,cpuacct:%s\n1:name=systemd:/user.slice\n"
	t.Run("v1 as root: the root", func(t *testing.T) {
		root := v1root(t)
		h, err := place(hierarchy{version: 1, root: root, mountRoot: "/"}, []byte(fmt.Sprintf(v1self, "/")), writableUnder(root))
		require.NoError(t, err)
		assert.Equal(t, "v1 "+root+", groups at its root", h.String())
	})
	t.Run("v1 not root: skip, naming what to run", func(t *testing.T) {
		root := v1root(t)
		_, err := place(hierarchy{version: 1, root: root, mountRoot: "/"}, []byte(fmt.Sprintf(v1self, "/")), writableUnder())
		assert.ErrorContains(t, err, "v1 "+root+" is not writable by euid 1000")
		assert.ErrorContains(t, err, "this process is in the root group "+root)
		assert.ErrorContains(t, err, "run the tests as root (sudo), or have root give you a group of the cpu hierarchy and run them from a shell in it: sudo mkdir "+root+"/$USER")
	})
	t.Run("v1 in a group root gave the user", func(t *testing.T) {
		root := v1root(t)
		mine := group(t, root, "alice", "", "", "42\n")
		h, err := place(hierarchy{version: 1, root: root, mountRoot: "/"}, []byte(fmt.Sprintf(v1self, "/alice")), writableUnder(mine))
		require.NoError(t, err)
		assert.Equal(t, mine, h.parent)
	})
	t.Run("v1 without CFS bandwidth control", func(t *testing.T) {
		root := t.TempDir()
		_, err := place(hierarchy{version: 1, root: root, mountRoot: "/"}, []byte(fmt.Sprintf(v1self, "/")), writableUnder(root))
		assert.ErrorContains(t, err, "CONFIG_CFS_BANDWIDTH")
	})
}

func TestMemoryPeakReadsWhicheverFileTheGroupHas(t *testing.T) {
	write := func(t *testing.T, dir, file, value string) {
		t.Helper()
		require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte(value), 0o644))
	}
	v2, v1, none, bad := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	write(t, v2, "memory.peak", "22020096\n")
	write(t, v1, "memory.max_usage_in_bytes", "20971520\n")
	write(t, bad, "memory.peak", "max\n")

	n, file, err := memoryPeak(v2)
	require.NoError(t, err)
	assert.Equal(t, [2]any{int64(22020096), "memory.peak"}, [2]any{n, file}, "v2")
	n, file, err = memoryPeak(v1)
	require.NoError(t, err)
	assert.Equal(t, [2]any{int64(20971520), "memory.max_usage_in_bytes"}, [2]any{n, file}, "v1")
	n, file, err = memoryPeak(none)
	require.NoError(t, err)
	assert.Equal(t, [2]any{int64(0), ""}, [2]any{n, file}, "a group without the memory controller keeps no peak")
	_, _, err = memoryPeak(bad)
	assert.ErrorContains(t, err, "memory.peak", "a peak that is not a number names its file")
}
