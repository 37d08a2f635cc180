// Package iamstub is a stand-in of IAM for the roles the live mode makes: an HTTP server on
// loopback that speaks IAM's query protocol (a form POST with Action and Version=2010-05-08,
// answered in IAM's XML envelope, errors as IAM's ErrorResponse with IAM's status codes) for
// CreateRole, GetRole, PutRolePolicy, GetRolePolicy, ListRolePolicies, DeleteRolePolicy,
// DeleteRole, ListRoles and ListRoleTags. Every request's SigV4 signature is checked
// (harness/standin/sigv4check, service iam, region us-east-1), so a client that works here signs as IAM
// expects. Policy documents are answered URL-encoded, as IAM answers them.
//
// A new role is not assumable by Lambda for PropagationDelay (Assumable), as IAM's changes take
// a while to reach Lambda; the Lambda stand-in asks Assumable before it accepts a role.
package iamstub

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/serverless-claims/claims/harness/standin/sigv4check"
)

// apiVersion is the only Version IAM's query API has.
const apiVersion = "2010-05-08"

// region is where IAM, a global service, is signed for.
const region = "us-east-1"

// maxBody bounds a request's body: IAM's largest input here is a policy document (10 KB for a
// role's inline policies together) or a trust policy.
const maxBody = 1 << 20

// lambdaPrincipal is the service principal a role's trust policy must allow for Lambda to
// assume it.
const lambdaPrincipal = "lambda.amazonaws.com"

// Options configures the stand-in.
type Options struct {
	// Keys are the accepted access keys; required.
	Keys sigv4check.Keys
	// AccountID is the account in ARNs; default sigv4check.DefaultAccountID.
	AccountID string
	// PropagationDelay is how long a new role is not yet assumable (Assumable).
	PropagationDelay time.Duration
	// PolicyPropagationDelay is how long a role's inline policy, once put, is not yet in force
	// (PolicyEffective): IAM is eventually consistent, so a call the policy allows may be denied
	// for a while after PutRolePolicy succeeded.
	PolicyPropagationDelay time.Duration
}

// Server is a running IAM stand-in.
type Server struct {
	o   Options
	srv *httptest.Server

	mu    sync.Mutex
	roles map[string]*role // by name
}

// role is one role and its inline policies.
type role struct {
	name, id, arn, path, description string
	trust                            string // the trust policy as sent (decoded)
	maxSession                       int
	created                          time.Time
	tags                             []tag
	policies                         map[string]string    // name -> document
	put                              map[string]time.Time // name -> when it was last put
}

type tag struct{ Key, Value string }

// Start starts the stand-in on loopback; it stops at t's end.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	if len(o.Keys) == 0 {
		t.Fatalf("iamstub: Options.Keys is empty; the stand-in checks every signature")
	}
	if o.AccountID == "" {
		o.AccountID = sigv4check.DefaultAccountID
	}
	s := &Server{o: o, roles: map[string]*role{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the stand-in's endpoint, http://127.0.0.1:port, for the iam client's BaseEndpoint.
func (s *Server) URL() string { return s.srv.URL }

// Roles are the names of the existing roles, sorted.
func (s *Server) Roles() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.roles))
}

// Assumable says whether Lambda may assume the role arn now: nil when the role exists, its trust
// policy allows lambda.amazonaws.com sts:AssumeRole, and it is older than PropagationDelay;
// otherwise an error saying which. It has the shape of lambdaapi.Options.RoleAssumable.
func (s *Server) Assumable(arn string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var r *role
	for _, c := range s.roles {
		if c.arn == arn {
			r = c
		}
	}
	if r == nil {
		return fmt.Errorf("role %s does not exist", arn)
	}
	if !trustsLambda(r.trust) {
		return fmt.Errorf("role %s does not let %s assume it (trust policy)", arn, lambdaPrincipal)
	}
	if age := time.Since(r.created); age < s.o.PropagationDelay {
		return fmt.Errorf("role %s is %v old; a new role is assumable only after %v", arn, age.Round(time.Millisecond), s.o.PropagationDelay)
	}
	return nil
}

// PolicyEffective says whether the role's inline policies are in force everywhere: true when the
// role exists and every inline policy it has was last put at least PolicyPropagationDelay ago
// (a role with no inline policy has none pending, and is true); false for a role that does not
// exist. A stand-in of a service the role calls denies it while this is false (e.g.
// dynalite.Options.Deny).
func (s *Server) PolicyEffective(roleName string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.roles[roleName]
	if !ok {
		return false
	}
	for _, at := range r.put {
		if time.Since(at) < s.o.PolicyPropagationDelay {
			return false
		}
	}
	return true
}

// trustsLambda reads a trust policy: some statement allows sts:AssumeRole to Lambda's service
// principal. Statement, Principal.Service and Action may each be one value or a list.
func trustsLambda(doc string) bool {
	var p struct{ Statement json.RawMessage }
	if json.Unmarshal([]byte(doc), &p) != nil {
		return false
	}
	type statement struct {
		Effect    string
		Principal struct{ Service json.RawMessage }
		Action    json.RawMessage
	}
	var stmts []statement
	if json.Unmarshal(p.Statement, &stmts) != nil {
		var one statement
		if json.Unmarshal(p.Statement, &one) != nil {
			return false
		}
		stmts = []statement{one}
	}
	for _, st := range stmts {
		if st.Effect == "Allow" && slices.Contains(oneOrMany(st.Principal.Service), lambdaPrincipal) &&
			slices.ContainsFunc(oneOrMany(st.Action), func(a string) bool { return a == "sts:AssumeRole" || a == "sts:*" || a == "*" }) {
			return true
		}
	}
	return false
}

// oneOrMany reads a policy value that is a string or a list of strings.
func oneOrMany(raw json.RawMessage) []string {
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return many
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	return nil
}
