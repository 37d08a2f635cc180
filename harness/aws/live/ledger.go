package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"syscall"
)

// A Ledger is what the processes of one workflow run have billed together, in a file they share
// (CLAIMS_LIVE_LEDGER): every Session of `make live` and of each confirmation run reads it
// before it admits an estimate or starts an invocation, and adds each bill to it, so that
// CLAIMS_LIVE_MAX_USD caps the whole run, not each process. The file holds one JSON object,
// {"billedUsd": N}; a missing or empty file is nothing billed yet. Anything else is refused,
// naming the file: a ledger that cannot be read fails closed, nothing more is made or invoked.
//
// Each change holds an exclusive flock on the file's companion PATH.lock and replaces the ledger
// through a temporary file renamed over it, so that a reader never sees half a ledger and two
// processes never lose each other's bills.
type Ledger struct {
	path string
}

// ledgerFile is the ledger's content.
type ledgerFile struct {
	BilledUSD float64 `json:"billedUsd"`
}

// OpenLedger is the ledger at path, which must be absolute (go test runs each package's binary in
// its own folder, so a relative path would name a different file in each); it reads the file
// once, so that a corrupt ledger is refused before anything is made.
func OpenLedger(path string) (*Ledger, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("%s = %q: want an absolute path (each test binary runs in its own package's folder)", EnvLedger, path)
	}
	l := &Ledger{path: path}
	if _, err := l.Billed(); err != nil {
		return nil, err
	}
	return l, nil
}

// Path is the ledger's file.
func (l *Ledger) Path() string { return l.path }

// Billed is what the run's processes have billed so far, read under the lock.
func (l *Ledger) Billed() (float64, error) {
	var billed float64
	err := l.locked(func() error {
		var err error
		billed, err = l.read()
		return err
	})
	return billed, err
}

// Add adds usd, one bill of this process, to the ledger and returns the run's new total.
func (l *Ledger) Add(usd float64) (float64, error) {
	if math.IsNaN(usd) || math.IsInf(usd, 0) || usd < 0 {
		return 0, fmt.Errorf("live: ledger %s: adding %v: want a bill of zero or more US dollars", l.path, usd)
	}
	var total float64
	err := l.locked(func() error {
		billed, err := l.read()
		if err != nil {
			return err
		}
		total = billed + usd
		return l.write(total)
	})
	return total, err
}

// locked runs f holding the exclusive lock on PATH.lock, which every process of the run takes.
func (l *Ledger) locked(f func() error) error {
	lf, err := os.OpenFile(l.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("live: ledger %s: %w", l.path, err)
	}
	defer lf.Close()
	for {
		err = syscall.Flock(int(lf.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("live: ledger %s: locking %s: %w", l.path, lf.Name(), err)
	}
	defer syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
	return f()
}

// read is the ledger's total; the lock is held.
func (l *Ledger) read() (float64, error) {
	data, err := os.ReadFile(l.path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(data) == 0) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("live: ledger %s: %w", l.path, err)
	}
	var f ledgerFile
	if err := json.Unmarshal(data, &f); err != nil {
		return 0, fmt.Errorf("live: ledger %s is not the run's ledger ({\"billedUsd\": N}): %w; nothing more is made or invoked until it is fixed or %s names another", l.path, err, EnvLedger)
	}
	if math.IsNaN(f.BilledUSD) || math.IsInf(f.BilledUSD, 0) || f.BilledUSD < 0 {
		return 0, fmt.Errorf("live: ledger %s says billedUsd %v: want zero or more US dollars; nothing more is made or invoked", l.path, f.BilledUSD)
	}
	return f.BilledUSD, nil
}

// write replaces the ledger with total, whole: a temporary file beside it, renamed over it. The
// lock is held.
func (l *Ledger) write(total float64) error {
	data, err := json.Marshal(ledgerFile{BilledUSD: total})
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(l.path), "."+filepath.Base(l.path)+".*")
	if err != nil {
		return fmt.Errorf("live: ledger %s: %w", l.path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing left to remove
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("live: ledger %s: %w", l.path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("live: ledger %s: %w", l.path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("live: ledger %s: %w", l.path, err)
	}
	if err := os.Rename(tmp.Name(), l.path); err != nil {
		return fmt.Errorf("live: ledger %s: %w", l.path, err)
	}
	return nil
}
