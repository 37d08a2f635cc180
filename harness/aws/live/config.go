// Package live is the live mode's library: it makes the functions, role and table a cold-start
// measurement needs on real AWS Lambda (or on any endpoint that speaks Lambda's, IAM's and
// DynamoDB's wire APIs, which is how the tests run it against the local stand-ins), invokes them,
// reads each invocation's REPORT, keeps the cost under a cap the user sets, and deletes everything
// it made, at the end, on Ctrl-C, or later from cmd/liveclean by the tags every resource carries.
//
// Credentials come from the SDK's default chain only and are never logged or written; account ids
// are redacted from ARNs in every message (RedactARN).
package live

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/serverless-claims/claims/harness/aws/prices"
)

// The environment variables the live mode reads, beside the SDK's own.
const (
	EnvArch           = "CLAIMS_LAMBDA_ARCH"
	EnvLambdaEndpoint = "CLAIMS_LAMBDA_ENDPOINT"
	EnvMaxUSD         = "CLAIMS_LIVE_MAX_USD"
	EnvRoleARN        = "CLAIMS_LAMBDA_ROLE_ARN"
	EnvTable          = "CLAIMS_DYNAMODB_TABLE"
	// EnvLedger names the file in which the processes of one run share the cap (Ledger); unset,
	// each process has the whole cap.
	EnvLedger = "CLAIMS_LIVE_LEDGER"
)

// The architectures, as Lambda names them (and the price table keys them).
const (
	ArchARM64 = prices.ARM64
	ArchX8664 = prices.X8664
)

// DefaultMaxUSD is the cost cap when CLAIMS_LIVE_MAX_USD is unset: a run of the cold-start claims
// is estimated well below it.
const DefaultMaxUSD = 0.25

// Config is the live mode's settings, from the environment.
type Config struct {
	// Arch is the functions' architecture: ArchARM64 (the default) or ArchX8664.
	Arch string
	// LambdaEndpoint, when set, is the Lambda client's BaseEndpoint: any Lambda-compatible API.
	LambdaEndpoint string
	// MaxUSD caps both the estimate (Admit) and the tally of what the invocations billed: of
	// this process, or with Ledger set, of every process sharing the ledger.
	MaxUSD float64
	// Ledger, when set, is the absolute path of the ledger the run's processes share (Ledger).
	Ledger string
	// RoleARN is an existing execution role to use; empty makes one for the run.
	RoleARN string
	// Table is an existing table holding the item; empty makes one for the run.
	Table string
}

var (
	roleARNPattern   = regexp.MustCompile(`^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]{1,512}$`)
	tableNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`)
)

// ConfigFromEnv reads the Config from the environment; each bad value is refused naming its
// variable.
func ConfigFromEnv() (Config, error) {
	c := Config{
		Arch:           os.Getenv(EnvArch),
		LambdaEndpoint: os.Getenv(EnvLambdaEndpoint),
		MaxUSD:         DefaultMaxUSD,
		RoleARN:        os.Getenv(EnvRoleARN),
		Table:          os.Getenv(EnvTable),
		Ledger:         os.Getenv(EnvLedger),
	}
	if c.Arch == "" {
		c.Arch = ArchARM64
	}
	if v := os.Getenv(EnvMaxUSD); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return Config{}, fmt.Errorf("%s = %q: not a number of US dollars", EnvMaxUSD, v)
		}
		c.MaxUSD = f
	}
	return c, c.Validate()
}

// Validate refuses a Config with a bad value, naming the variable it comes from, so that a
// Config built in code is held to the same rules as one from the environment.
func (c Config) Validate() error {
	var errs []error
	if c.Arch != ArchARM64 && c.Arch != ArchX8664 {
		errs = append(errs, fmt.Errorf("%s = %q: want %s or %s", EnvArch, c.Arch, ArchARM64, ArchX8664))
	}
	if c.LambdaEndpoint != "" {
		u, err := url.Parse(c.LambdaEndpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("%s = %q: want an http(s) URL with a host", EnvLambdaEndpoint, c.LambdaEndpoint))
		}
	}
	if math.IsNaN(c.MaxUSD) || math.IsInf(c.MaxUSD, 0) || c.MaxUSD <= 0 {
		errs = append(errs, fmt.Errorf("%s = %v: want a positive number of US dollars", EnvMaxUSD, c.MaxUSD))
	}
	if c.RoleARN != "" && !roleARNPattern.MatchString(c.RoleARN) {
		errs = append(errs, fmt.Errorf("%s = %q: want an IAM role ARN, arn:aws:iam::<account>:role/<name>", EnvRoleARN, RedactARN(c.RoleARN)))
	}
	if c.Table != "" && !tableNamePattern.MatchString(c.Table) {
		errs = append(errs, fmt.Errorf("%s = %q: want a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -)", EnvTable, c.Table))
	}
	if c.Ledger != "" && !filepath.IsAbs(c.Ledger) {
		errs = append(errs, fmt.Errorf("%s = %q: want an absolute path (each test binary runs in its own package's folder)", EnvLedger, c.Ledger))
	}
	return errors.Join(errs...)
}

// LoadAWS loads the SDK's configuration through its default chain (environment, shared files,
// SSO, container or instance role), opts applied after, and checks that it names a region and
// yields credentials, saying exactly what is missing. The credentials are never printed.
func LoadAWS(ctx context.Context, c Config, opts ...func(*config.LoadOptions) error) (aws.Config, error) {
	if err := c.Validate(); err != nil {
		return aws.Config{}, err
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return aws.Config{}, errors.New("no AWS region: set AWS_REGION (or AWS_DEFAULT_REGION), or region in the profile AWS_PROFILE names")
	}
	if cfg.Credentials == nil {
		return aws.Config{}, errors.New("no AWS credentials in the SDK's default chain")
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		return aws.Config{}, fmt.Errorf("no AWS credentials in the SDK's default chain (environment, shared config and credentials files, SSO, container or instance role): %w", err)
	}
	return cfg, nil
}
