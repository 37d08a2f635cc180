// Package webendpoints is where the Web Functions claims (W6-W9, W12) find their endpoints: the file
// `make live-web-deploy` writes (.cache/live-web/endpoints.json, git-ignored), or the URLs of
// functions deployed any other way, named by CLAIMS_WEB_NODE_URL, CLAIMS_WEB_GO_URL and
// CLAIMS_WEB_GO_C1_URL. The variables win over the file.
package webendpoints

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/serverless-claims/claims/harness/sys/repo"
	"github.com/serverless-claims/claims/harness/sys/wholefile"
)

// The endpoint names: the Node probe, the Go probe behind its Node launcher, and the Go probe
// again with maxConcurrencyPerEnvironment lowered to 1 (W12).
const (
	Node    = "node"
	Go      = "go"
	GoConc1 = "go-c1"
)

// The variables that name endpoints deployed some other way, by endpoint name.
var URLEnv = map[string]string{
	Node:    "CLAIMS_WEB_NODE_URL",
	Go:      "CLAIMS_WEB_GO_URL",
	GoConc1: "CLAIMS_WEB_GO_C1_URL",
}

// The Web Function settings the article used, and the deploy script sets.
const (
	Runtime         = "nodejs24.x"
	Arch            = "arm64"
	MaxEnvironments = 2
	// LoweredMaxEnvironments is W12's lowered endpoint's: at maxConcurrencyPerEnvironment 1 the
	// two /cpu fill two environments, and a /ping can be served only by a third (below
	// maxEnvironments Lambda scales out rather than throttle), so W12 decides on served /ping
	// rather than come out inconclusive on throttled ones.
	LoweredMaxEnvironments = 3
	DefaultConcurrency     = 64 // Lambda's default maxConcurrencyPerEnvironment
	AuthIAM                = "IamAuth"
	AuthPublic             = "ApplicationManaged"
)

// ErrNoEndpoints says that neither the file nor a variable names any endpoint.
var ErrNoEndpoints = errors.New("no Web Function endpoints: run `make live-web-deploy`, or set " +
	"CLAIMS_WEB_NODE_URL and CLAIMS_WEB_GO_URL (and CLAIMS_WEB_GO_C1_URL for W12) to deployed functions")

// Endpoint is one deployed Web Function endpoint.
type Endpoint struct {
	Name string `json:"name"` // Node, Go or GoConc1
	URL  string `json:"url"`  // https://...
	// Auth is AuthIAM (every request is signed with SigV4, service lambda) or AuthPublic.
	Auth    string `json:"auth"`
	Region  string `json:"region"`
	Runtime string `json:"runtime"`
	Arch    string `json:"arch"`
	// MaxEnvironments and MaxConcurrencyPerEnvironment are the deployed settings; zero where
	// unknown (an endpoint named by a variable).
	MaxEnvironments              int `json:"maxEnvironments,omitempty"`
	MaxConcurrencyPerEnvironment int `json:"maxConcurrencyPerEnvironment,omitempty"`
	// Function names the Web Function (claims-<run id>-...), for destroy.
	Function string `json:"function,omitempty"`
}

// Deployment is what one `make live-web-deploy` made.
type Deployment struct {
	RunID     string     `json:"runId,omitempty"`
	Region    string     `json:"region"`
	CreatedAt time.Time  `json:"createdAt"`
	Source    string     `json:"source"` // the file's path, or "environment"
	Endpoints []Endpoint `json:"endpoints"`
	// Bucket and Role name the code bucket and the execution role the deploy made, for destroy;
	// empty for endpoints named by the variables.
	Bucket string `json:"bucket,omitempty"`
	Role   string `json:"role,omitempty"`
}

// Endpoint returns the endpoint named name, or false.
func (d Deployment) Endpoint(name string) (Endpoint, bool) {
	for _, e := range d.Endpoints {
		if e.Name == name {
			return e, true
		}
	}
	return Endpoint{}, false
}

// File is where `make live-web-deploy` writes the deployment.
func File() (string, error) {
	root, err := repo.Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".cache", "live-web", "endpoints.json"), nil
}

// Load returns the endpoints: from the variables when any is set (IamAuth unless
// CLAIMS_WEB_AUTH says ApplicationManaged), else from File. ErrNoEndpoints when neither has any.
func Load() (Deployment, error) {
	path, err := File()
	if err != nil {
		return Deployment{}, err
	}
	return loadFrom(path)
}

// loadFrom is Load with the file at path.
func loadFrom(path string) (Deployment, error) {
	if d, ok, err := fromEnv(); ok || err != nil {
		return d, err
	}
	d, err := Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return Deployment{}, ErrNoEndpoints
	}
	return d, err
}

// AuthEnv says how endpoints named by the variables authenticate: IamAuth unless set.
const AuthEnv = "CLAIMS_WEB_AUTH"

func fromEnv() (Deployment, bool, error) {
	auth := os.Getenv(AuthEnv)
	if auth == "" {
		auth = AuthIAM
	}
	if auth != AuthIAM && auth != AuthPublic {
		return Deployment{}, false, fmt.Errorf("%s = %q: want %s or %s", AuthEnv, auth, AuthIAM, AuthPublic)
	}
	d := Deployment{Source: "environment"}
	var errs []error
	for _, name := range []string{Node, Go, GoConc1} {
		raw := os.Getenv(URLEnv[name])
		if raw == "" {
			continue
		}
		region, err := checkURL(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", URLEnv[name], err))
			continue
		}
		if d.Region == "" {
			d.Region = region
		}
		e := Endpoint{Name: name, URL: raw, Auth: auth, Region: region, Runtime: Runtime, Arch: Arch}
		if name == GoConc1 {
			e.MaxConcurrencyPerEnvironment = 1
		}
		d.Endpoints = append(d.Endpoints, e)
	}
	if err := errors.Join(errs...); err != nil {
		return Deployment{}, true, err
	}
	return d, len(d.Endpoints) > 0, nil
}

// checkURL refuses what is not an https URL with a host, and returns the region its host names
// ({id}.{generated}.lambda-web.{region}.on.aws), or "" for another host (a region then comes
// from the SDK's configuration).
func checkURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.RawQuery != "" {
		return "", fmt.Errorf("%q: want an https URL with a host and no user or query", redactQuery(raw))
	}
	labels := strings.Split(u.Hostname(), ".")
	for i, l := range labels {
		if l == "lambda-web" && i+1 < len(labels) && labels[i+1] != "global" {
			return labels[i+1], nil
		}
	}
	return "", nil
}

// redactQuery drops a URL's query, where a presigned URL would carry its signature.
func redactQuery(raw string) string {
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		return raw[:i] + "?…"
	}
	return raw
}

// Read reads a deployment file and checks each endpoint's URL.
func Read(path string) (Deployment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Deployment{}, err
	}
	var d Deployment
	if err := json.Unmarshal(data, &d); err != nil {
		return Deployment{}, fmt.Errorf("%s: %w", path, err)
	}
	d.Source = path
	if len(d.Endpoints) == 0 {
		return Deployment{}, fmt.Errorf("%s: %w", path, ErrNoEndpoints)
	}
	for _, e := range d.Endpoints {
		if _, err := checkURL(e.URL); err != nil {
			return Deployment{}, fmt.Errorf("%s: endpoint %s: %w", path, e.Name, err)
		}
	}
	return d, nil
}

// Write writes d to path whole or not at all (a temporary file renamed into place).
func Write(path string, d Deployment) error {
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return wholefile.Write(path, append(data, '\n'))
}
