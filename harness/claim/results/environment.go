package results

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/serverless-claims/claims/harness/sys/cgroup"
)

// Fingerprint reads the machine this process runs on. Runtime versions the harness cannot know
// (Node's, a probe's GOMAXPROCS) are for the caller to fill in.
func Fingerprint() Environment {
	return Environment{
		Go:               runtime.Version(),
		OS:               runtime.GOOS + "/" + runtime.GOARCH,
		Kernel:           firstLine("/proc/sys/kernel/osrelease"),
		CPUModel:         cpuModel(),
		Cores:            runtime.NumCPU(),
		GOMAXPROCS:       runtime.GOMAXPROCS(0),
		UVThreadpoolSize: os.Getenv("UV_THREADPOOL_SIZE"),
		LoadAvg1:         loadAvg1(),
		Cgroup:           cgroup.DescribeMachine(),
	}
}

func firstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func loadAvg1() float64 {
	f := strings.Fields(firstLine("/proc/loadavg"))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
