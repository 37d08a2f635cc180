// Package logsstub is a stand-in of CloudWatch Logs for the log groups the live mode's functions
// leave: an HTTP server on loopback that speaks the JSON 1.1 protocol the SDK uses (a POST with
// X-Amz-Target Logs_20140328.<operation> and Content-Type application/x-amz-json-1.1, errors
// as {"__type": ..., "message": ...} with status 400) for CreateLogGroup, DescribeLogGroups
// (logGroupNamePrefix, limit, nextToken), DeleteLogGroup and PutRetentionPolicy. Every request's
// SigV4 signature is checked (harness/standin/sigv4check, service logs, the stand-in's region).
//
// Lambda makes a function's log group /aws/lambda/<function name> when the function first logs;
// a test does that with AddLogGroup.
package logsstub

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/serverless-claims/claims/harness/standin/sigv4check"
)

// DefaultRegion is the region requests must be signed for when Options.Region is empty.
const DefaultRegion = "us-east-1"

// targetPrefix begins X-Amz-Target: the service's JSON API name and version.
const targetPrefix = "Logs_20140328."

// contentType is the JSON 1.1 protocol's media type.
const contentType = "application/x-amz-json-1.1"

// signingName is the service name in a SigV4 credential scope for CloudWatch Logs.
const signingName = "logs"

// maxBody bounds a request's body: these operations' inputs are a name, a prefix, a token and
// tags.
const maxBody = 1 << 20

// The limits of DescribeLogGroups' limit (botocore's DescribeLimit: 1 to 50, 50 when absent).
const (
	maxLimit     = 50
	defaultLimit = 50
)

// logGroupName is the model's pattern for a log group name, 1 to 512 characters.
var logGroupName = regexp.MustCompile(`^[.\-_/#A-Za-z0-9]+$`)

// retentionDays are the values PutRetentionPolicy accepts.
var retentionDays = []int{1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653}

// Options configures the stand-in.
type Options struct {
	// Keys are the accepted access keys; required.
	Keys sigv4check.Keys
	// AccountID is the account in ARNs; default sigv4check.DefaultAccountID.
	AccountID string
	// Region is the region requests are signed for and ARNs name; default DefaultRegion.
	Region string
}

// Server is a running CloudWatch Logs stand-in.
type Server struct {
	o   Options
	srv *httptest.Server

	mu     sync.Mutex
	groups map[string]*group // by name
	calls  map[string]int    // operation -> how many were answered
}

// group is one log group.
type group struct {
	name      string
	created   time.Time
	retention int // days; 0 is "never expire"
	tags      map[string]string
}

// Start starts the stand-in on loopback; it stops at t's end.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	if len(o.Keys) == 0 {
		t.Fatalf("logsstub: Options.Keys is empty; the stand-in checks every signature")
	}
	if o.AccountID == "" {
		o.AccountID = sigv4check.DefaultAccountID
	}
	if o.Region == "" {
		o.Region = DefaultRegion
	}
	s := &Server{o: o, groups: map[string]*group{}, calls: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the stand-in's endpoint, http://127.0.0.1:port, for AWS_ENDPOINT_URL_CLOUDWATCH_LOGS.
func (s *Server) URL() string { return s.srv.URL }

// AddLogGroup makes the log group name, as Lambda does when a function first writes to it; a
// group that exists is left as it is.
func (s *Server) AddLogGroup(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.groups[name]; !ok {
		s.groups[name] = &group{name: name, created: time.Now()}
	}
}

// LogGroups are the names of the existing log groups, sorted.
func (s *Server) LogGroups() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.groups))
}

// Retention is the retention of the log group name in days (0: never expire) and whether it
// exists.
func (s *Server) Retention(name string) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.groups[name]
	if !ok {
		return 0, false
	}
	return g.retention, true
}

// Calls is how many requests of the operation (e.g. "DeleteLogGroup") were answered, errors
// included.
func (s *Server) Calls(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// apiError is an error answered in the JSON protocol's shape.
type apiError struct {
	status       int
	typ, message string
}

func (e *apiError) Error() string { return e.typ + ": " + e.message }

func clientError(typ, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: typ, message: fmt.Sprintf(format, args...)}
}

func invalidParameter(format string, args ...any) *apiError {
	return clientError("InvalidParameterException", format, args...)
}

// serve checks the signature and the target, decodes the input and runs the operation.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	requestID := newRequestID()
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		writeError(w, requestID, clientError("SerializationException", "reading the request: %v", err))
		return
	}
	if len(body) > maxBody {
		writeError(w, requestID, &apiError{status: http.StatusRequestEntityTooLarge, typ: "RequestEntityTooLarge", message: fmt.Sprintf("request body is larger than %d bytes", maxBody)})
		return
	}
	if e := s.authenticate(r, body); e != nil {
		writeError(w, requestID, e)
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, requestID, clientError("UnknownOperationException", "the JSON API takes POST, not %s", r.Method))
		return
	}
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), targetPrefix)
	run, known := map[string]func([]byte) (any, *apiError){
		"CreateLogGroup":     s.createLogGroup,
		"DescribeLogGroups":  s.describeLogGroups,
		"DeleteLogGroup":     s.deleteLogGroup,
		"PutRetentionPolicy": s.putRetentionPolicy,
	}[op]
	if !ok || !known {
		writeError(w, requestID, clientError("UnknownOperationException", "X-Amz-Target %q is not an operation of %s", r.Header.Get("X-Amz-Target"), strings.TrimSuffix(targetPrefix, ".")))
		return
	}
	if len(body) == 0 {
		body = []byte("{}")
	}
	s.mu.Lock()
	s.calls[op]++
	result, e := run(body)
	s.mu.Unlock()
	if e != nil {
		writeError(w, requestID, e)
		return
	}
	data, err := json.Marshal(result)
	if err != nil {
		writeError(w, requestID, &apiError{status: http.StatusInternalServerError, typ: "ServiceUnavailableException", message: err.Error()})
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(http.StatusOK)
	w.Write(data)
}

// signatureCodes are the JSON services' codes for a refused signature, each answered 400.
var signatureCodes = sigv4check.Codes{
	Unsigned: "MissingAuthenticationTokenException", UnknownKey: "UnrecognizedClientException", BadSignature: "InvalidSignatureException",
}

// authenticate checks the SigV4 signature and its scope, answering as the JSON services do.
func (s *Server) authenticate(r *http.Request, body []byte) *apiError {
	if f := s.o.Keys.Authorize(r, body, signingName, s.o.Region); f != nil {
		return clientError(f.Code(signatureCodes), "%s", f)
	}
	return nil
}

// decode reads the operation's input, refusing a body that is not its JSON object.
func decode(body []byte, v any) *apiError {
	if err := json.Unmarshal(body, v); err != nil {
		return clientError("SerializationException", "the request body is not the operation's input: %v", err)
	}
	return nil
}

// checkName checks a log group name as the model constrains it.
func checkName(field, v string) *apiError {
	switch {
	case v == "":
		return invalidParameter("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	case len(v) > 512:
		return invalidParameter("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to 512", v, field)
	case !logGroupName.MatchString(v):
		return invalidParameter("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\.\\-_/#A-Za-z0-9]+", v, field)
	}
	return nil
}

func (s *Server) createLogGroup(body []byte) (any, *apiError) {
	var in struct {
		LogGroupName string            `json:"logGroupName"`
		Tags         map[string]string `json:"tags"`
	}
	if e := decode(body, &in); e != nil {
		return nil, e
	}
	if e := checkName("logGroupName", in.LogGroupName); e != nil {
		return nil, e
	}
	if strings.HasPrefix(in.LogGroupName, "aws/") {
		return nil, invalidParameter("Log group names can't start with the string aws/: %s", in.LogGroupName)
	}
	if _, ok := s.groups[in.LogGroupName]; ok {
		return nil, clientError("ResourceAlreadyExistsException", "The specified log group already exists")
	}
	s.groups[in.LogGroupName] = &group{name: in.LogGroupName, created: time.Now(), tags: maps.Clone(in.Tags)}
	return struct{}{}, nil
}

// logGroup is a log group as DescribeLogGroups answers it.
type logGroup struct {
	Arn               string `json:"arn"`
	LogGroupArn       string `json:"logGroupArn"`
	LogGroupName      string `json:"logGroupName"`
	CreationTime      int64  `json:"creationTime"`
	RetentionInDays   int    `json:"retentionInDays,omitempty"`
	MetricFilterCount int    `json:"metricFilterCount"`
	StoredBytes       int64  `json:"storedBytes"`
	LogGroupClass     string `json:"logGroupClass"`
}

// arn is the log group's ARN without the trailing :* that DescribeLogGroups' arn field carries.
func (s *Server) arn(name string) string {
	return fmt.Sprintf("arn:aws:logs:%s:%s:log-group:%s", s.o.Region, s.o.AccountID, name)
}

// describeLogGroups answers the groups whose names start with the prefix, sorted by name,
// at most limit a page; nextToken names the last group of the page before.
func (s *Server) describeLogGroups(body []byte) (any, *apiError) {
	var in struct {
		LogGroupNamePrefix  *string `json:"logGroupNamePrefix"`
		LogGroupNamePattern *string `json:"logGroupNamePattern"`
		Limit               *int    `json:"limit"`
		NextToken           *string `json:"nextToken"`
	}
	if e := decode(body, &in); e != nil {
		return nil, e
	}
	if in.LogGroupNamePrefix != nil && in.LogGroupNamePattern != nil {
		return nil, invalidParameter("LogGroupNamePrefix and LogGroupNamePattern are mutually exclusive. Only one of these parameters can be passed.")
	}
	if in.LogGroupNamePattern != nil {
		return nil, invalidParameter("logsstub: logGroupNamePattern is not modelled; use logGroupNamePrefix")
	}
	prefix := ""
	if in.LogGroupNamePrefix != nil {
		prefix = *in.LogGroupNamePrefix
		if e := checkName("logGroupNamePrefix", prefix); e != nil {
			return nil, e
		}
	}
	limit := defaultLimit
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > maxLimit {
			return nil, invalidParameter("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and %d", *in.Limit, maxLimit)
		}
		limit = *in.Limit
	}
	after := ""
	if in.NextToken != nil {
		raw, err := base64.RawURLEncoding.DecodeString(*in.NextToken)
		if err != nil || len(raw) == 0 {
			return nil, invalidParameter("The specified nextToken is invalid.")
		}
		after = string(raw)
	}
	var names []string
	for _, n := range slices.Sorted(maps.Keys(s.groups)) {
		if strings.HasPrefix(n, prefix) && n > after {
			names = append(names, n)
		}
	}
	out := struct {
		LogGroups []logGroup `json:"logGroups"`
		NextToken string     `json:"nextToken,omitempty"`
	}{LogGroups: []logGroup{}}
	for i, n := range names {
		if i == limit {
			out.NextToken = base64.RawURLEncoding.EncodeToString([]byte(names[i-1]))
			break
		}
		g := s.groups[n]
		out.LogGroups = append(out.LogGroups, logGroup{
			Arn: s.arn(n) + ":*", LogGroupArn: s.arn(n), LogGroupName: n,
			CreationTime: g.created.UnixMilli(), RetentionInDays: g.retention, LogGroupClass: "STANDARD",
		})
	}
	return out, nil
}

func (s *Server) deleteLogGroup(body []byte) (any, *apiError) {
	var in struct {
		LogGroupName string `json:"logGroupName"`
	}
	if e := decode(body, &in); e != nil {
		return nil, e
	}
	if e := checkName("logGroupName", in.LogGroupName); e != nil {
		return nil, e
	}
	if _, ok := s.groups[in.LogGroupName]; !ok {
		return nil, clientError("ResourceNotFoundException", "The specified log group does not exist.")
	}
	delete(s.groups, in.LogGroupName)
	return struct{}{}, nil
}

func (s *Server) putRetentionPolicy(body []byte) (any, *apiError) {
	var in struct {
		LogGroupName    string `json:"logGroupName"`
		RetentionInDays *int   `json:"retentionInDays"`
	}
	if e := decode(body, &in); e != nil {
		return nil, e
	}
	if e := checkName("logGroupName", in.LogGroupName); e != nil {
		return nil, e
	}
	if in.RetentionInDays == nil {
		return nil, invalidParameter("1 validation error detected: Value null at 'retentionInDays' failed to satisfy constraint: Member must not be null")
	}
	if !slices.Contains(retentionDays, *in.RetentionInDays) {
		return nil, invalidParameter("1 validation error detected: Value '%d' at 'retentionInDays' failed to satisfy constraint: Member must satisfy enum value set: %v", *in.RetentionInDays, retentionDays)
	}
	g, ok := s.groups[in.LogGroupName]
	if !ok {
		return nil, clientError("ResourceNotFoundException", "The specified log group does not exist.")
	}
	g.retention = *in.RetentionInDays
	return struct{}{}, nil
}

// writeError answers e in the JSON protocol's error shape: __type names the error, the SDK reads
// it into the error's code.
func writeError(w http.ResponseWriter, requestID string, e *apiError) {
	data, _ := json.Marshal(map[string]string{"__type": e.typ, "message": e.message}) // strings only
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(e.status)
	w.Write(data)
}

// newRequestID is a random id shaped as AWS's request ids.
func newRequestID() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
