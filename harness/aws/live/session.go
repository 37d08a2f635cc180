package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/serverless-claims/claims/harness/sys/interrupt"
)

// Tags every resource of a run carries, by which cmd/liveclean finds what an earlier run left.
const (
	TagRun     = "claims:run"
	TagCreated = "claims:created"
)

// NamePrefix begins the name of everything a run makes: claims-<run id>-<what>.
const NamePrefix = "claims-"

// maxNameLen is Lambda's limit on a function name and IAM's on a role name.
const maxNameLen = 64

// signalCloseTimeout bounds the deletions Ctrl-C runs, so that an unreachable endpoint does not
// keep a dying binary alive.
const signalCloseTimeout = 60 * time.Second

// maxAttempts is how many times a client tries a call that is throttled or fails in transit: a
// few more than the SDK's default, as a run makes its calls in bursts.
const maxAttempts = 6

// Session is one live run: its id, its clients, what it made (to delete at Close), and the tally
// of what its invocations billed.
type Session struct {
	// RunID is 8 lowercase hex characters, in every name and in the claims:run tag.
	RunID string
	// Region is the AWS region of every client.
	Region string
	// Config is what the session was opened with.
	Config Config
	// Created is when the session was opened, the claims:created tag of what it makes.
	Created time.Time
	// Lambda, IAM and DynamoDB are the session's clients.
	Lambda   *lambda.Client
	IAM      *iam.Client
	DynamoDB *dynamodb.Client
	// Logs is the CloudWatch Logs client, for the log groups of the run's functions.
	Logs *cloudwatchlogs.Client

	// roleWait bounds how long CreateFunction retries a role Lambda cannot assume yet; waitMin
	// and waitMax are the waiters' delays.
	roleWait, waitMin, waitMax time.Duration

	// roleARN and table are what Role and Table made, under their own locks, held while making.
	roleMu  sync.Mutex
	roleARN string
	tableMu sync.Mutex
	table   string

	mu       sync.Mutex
	admitted bool
	// closing is set by Close: nothing more is made or invoked. inflight counts the makes begun
	// (mayMake) whose resource is not yet registered for deletion, which Close waits for.
	closing  bool
	inflight sync.WaitGroup
	spentUSD float64
	undo     []*undo // oldest first

	// ledger is the run's shared tally (Config.Ledger), nil without one; ledgerErr is the first
	// bill it could not take, after which nothing more is invoked (fail closed).
	ledger    *Ledger
	ledgerErr error
}

// undo deletes one thing the session made.
type undo struct {
	what string // "function claims-…", for errors
	run  func(context.Context) error
	done bool
}

// NewRunID is a new run id: 4 random bytes in hex, as in every name and claims:run tag of a run.
func NewRunID() (string, error) {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making a run id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Open starts a session: a new run id and the lambda, iam and dynamodb clients from awsCfg (the
// lambda one at c.LambdaEndpoint when set). It makes nothing yet. Its Close runs on Ctrl-C too.
func Open(ctx context.Context, c Config, awsCfg aws.Config) (*Session, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if awsCfg.Region == "" {
		return nil, errors.New("live: the AWS configuration names no region")
	}
	var ledger *Ledger
	if c.Ledger != "" {
		l, err := OpenLedger(c.Ledger)
		if err != nil {
			return nil, err
		}
		ledger = l
	}
	id, err := NewRunID()
	if err != nil {
		return nil, err
	}
	retries := func(r aws.Retryer) aws.Retryer { return retry.AddWithMaxAttempts(r, maxAttempts) }
	s := &Session{
		RunID: id, Region: awsCfg.Region, Config: c, Created: time.Now().UTC().Truncate(time.Second),
		Lambda: lambda.NewFromConfig(awsCfg, func(o *lambda.Options) {
			if c.LambdaEndpoint != "" {
				o.BaseEndpoint = aws.String(c.LambdaEndpoint)
			}
			o.Retryer = retries(o.Retryer)
		}),
		IAM:      iam.NewFromConfig(awsCfg, func(o *iam.Options) { o.Retryer = retries(o.Retryer) }),
		DynamoDB: dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) { o.Retryer = retries(o.Retryer) }),
		Logs:     NewLogsClient(awsCfg),
		roleWait: 60 * time.Second, waitMin: 50 * time.Millisecond, waitMax: 3 * time.Second,
		ledger: ledger,
	}
	interrupt.OnSignal(func() {
		ctx, cancel := context.WithTimeout(context.Background(), signalCloseTimeout)
		defer cancel()
		_ = s.Close(ctx)
	})
	return s, nil
}

// name is the run's name for what: claims-<run>-<what>, or claims-<run> for an empty what.
func (s *Session) name(what string) (string, error) {
	n := NamePrefix + s.RunID
	if what != "" {
		n += "-" + what
	}
	if len(n) > maxNameLen {
		return "", fmt.Errorf("live: name %s is %d characters; Lambda and IAM allow %d", n, len(n), maxNameLen)
	}
	return n, nil
}

// tags are the run's tags on a resource.
func (s *Session) tags() map[string]string {
	return map[string]string{TagRun: s.RunID, TagCreated: s.Created.Format(time.RFC3339)}
}

// made registers the deletion of something the session made, to run at Close, newest first.
func (s *Session) made(what string, del func(context.Context) error) *undo {
	u := &undo{what: what, run: del}
	s.mu.Lock()
	s.undo = append(s.undo, u)
	s.mu.Unlock()
	return u
}

// forget marks u done, after its resource was deleted another way.
func (s *Session) forget(u *undo) {
	s.mu.Lock()
	u.done = true
	s.mu.Unlock()
}

// Close deletes everything the session made, newest first (functions before the table, the
// role's policy before the role). It goes on past a failure and returns every failure, each
// naming the resource and the operation; a second Close retries only what failed.
func (s *Session) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	// A make in flight when Close begins (Ctrl-C in the middle of a create) registers its
	// resource once its call returns: wait for that, or the resource would outlive the run.
	var errs []error
	registered := make(chan struct{})
	go func() { s.inflight.Wait(); close(registered) }()
	select {
	case <-registered:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("live: run %s: a create still in flight when its deletions had to start: %w", s.RunID, ctx.Err()))
	}
	s.mu.Lock()
	var todo []*undo
	for _, u := range s.undo {
		if !u.done {
			todo = append(todo, u)
		}
	}
	s.mu.Unlock()
	for i := len(todo) - 1; i >= 0; i-- {
		u := todo[i]
		if err := u.run(ctx); err != nil {
			errs = append(errs, redact(fmt.Errorf("live: deleting %s: %w", u.what, err)))
			continue
		}
		s.forget(u)
	}
	return errors.Join(errs...)
}

// Admit prints what the run will make and its estimate, and refuses the run (nothing is made)
// when the estimate passes the cap. Nothing is made before Admit has passed.
func (s *Session) Admit(e Estimate, out io.Writer) error {
	fmt.Fprintf(out, "live run %s in %s (%s) will make:\n", s.RunID, s.Region, s.Config.Arch)
	if s.Config.RoleARN == "" {
		fmt.Fprintf(out, "  IAM role %s%s-exec with an inline policy\n", NamePrefix, s.RunID)
	} else {
		fmt.Fprintf(out, "  nothing in IAM: role %s from %s\n", RedactARN(s.Config.RoleARN), EnvRoleARN)
	}
	if s.Config.Table == "" {
		fmt.Fprintf(out, "  DynamoDB table %s%s (on-demand) with one item, if a function reads DynamoDB\n", NamePrefix, s.RunID)
	} else {
		fmt.Fprintf(out, "  no table: %s from %s\n", s.Config.Table, EnvTable)
	}
	for _, l := range e.Lines {
		fmt.Fprintf(out, "  %s\n", l)
	}
	fmt.Fprintf(out, "estimate: $%.4f (%s); cap $%.2f (%s)\n", e.USD, e.PriceTable, s.Config.MaxUSD, EnvMaxUSD)
	if e.USD > s.Config.MaxUSD {
		return fmt.Errorf("live: the estimate $%.4f is above the cap $%.2f: nothing was made; raise %s to run it", e.USD, s.Config.MaxUSD, EnvMaxUSD)
	}
	if s.ledger != nil {
		// The run's earlier processes (and this one's earlier sessions) billed part of the cap:
		// this session gets what remains.
		billed, err := s.ledger.Billed()
		if err != nil {
			return err
		}
		left := s.Config.MaxUSD - billed
		fmt.Fprintf(out, "the run so far billed $%.4f of the cap (%s %s): $%.4f remains\n", billed, EnvLedger, s.ledger.Path(), left)
		if e.USD > left {
			return fmt.Errorf("live: the estimate $%.4f is above the $%.4f that remains of the cap $%.2f (%s) once the run's earlier processes billed $%.4f (%s %s): nothing was made",
				e.USD, left, s.Config.MaxUSD, EnvMaxUSD, billed, EnvLedger, s.ledger.Path())
		}
	}
	s.mu.Lock()
	s.admitted = true
	s.mu.Unlock()
	return nil
}

// mayMake refuses to make anything before Admit passed or once Close began; otherwise it
// counts the make as in flight until done is called, which the maker does as soon as what it
// made is registered for deletion (calling done again does nothing).
func (s *Session) mayMake(what string) (done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.admitted {
		return nil, fmt.Errorf("live: not making %s: the run's estimate was not admitted (Session.Admit)", what)
	}
	if s.closing {
		return nil, fmt.Errorf("live: not making %s: run %s is being deleted", what, s.RunID)
	}
	s.inflight.Add(1)
	return sync.OnceFunc(s.inflight.Done), nil
}

// Spent is the tally of what the session's invocations billed, in USD, from their REPORTs.
func (s *Session) Spent() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spentUSD
}

// spend adds usd to the tally, and to the run's ledger where there is one.
func (s *Session) spend(usd float64) {
	s.mu.Lock()
	s.spentUSD += usd
	s.mu.Unlock()
	if s.ledger == nil {
		return
	}
	if _, err := s.ledger.Add(usd); err != nil {
		s.mu.Lock()
		if s.ledgerErr == nil {
			s.ledgerErr = err
		}
		s.mu.Unlock()
	}
}

// mayInvoke refuses an invocation once the tally has passed the cap: this session's, or with a
// ledger, the whole run's. A ledger that cannot be read or that missed a bill refuses too.
func (s *Session) mayInvoke(fn string) error {
	s.mu.Lock()
	closing, spent, ledgerErr := s.closing, s.spentUSD, s.ledgerErr
	s.mu.Unlock()
	if closing {
		return fmt.Errorf("live: not invoking %s: run %s is being deleted", fn, s.RunID)
	}
	if ledgerErr != nil {
		return fmt.Errorf("live: not invoking %s: a bill could not be added to the run's ledger: %w", fn, ledgerErr)
	}
	if spent > s.Config.MaxUSD {
		return fmt.Errorf("live: not invoking %s: the invocations so far billed $%.4f, above the cap $%.2f (%s)", fn, spent, s.Config.MaxUSD, EnvMaxUSD)
	}
	if s.ledger == nil {
		return nil
	}
	billed, err := s.ledger.Billed()
	if err != nil {
		return fmt.Errorf("live: not invoking %s: %w", fn, err)
	}
	if billed > s.Config.MaxUSD {
		return fmt.Errorf("live: not invoking %s: the run's processes so far billed $%.4f (%s %s), above the cap $%.2f (%s)", fn, billed, EnvLedger, s.ledger.Path(), s.Config.MaxUSD, EnvMaxUSD)
	}
	return nil
}
