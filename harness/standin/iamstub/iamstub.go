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
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

// apiError is an error answered in IAM's ErrorResponse.
type apiError struct {
	status        int
	typ           string // Sender or Receiver
	code, message string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func sender(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, typ: "Sender", code: code, message: fmt.Sprintf(format, args...)}
}

func noSuchEntity(format string, args ...any) *apiError {
	return sender(http.StatusNotFound, "NoSuchEntity", format, args...)
}

func validation(format string, args ...any) *apiError {
	return sender(http.StatusBadRequest, "ValidationError", format, args...)
}

// serve checks the signature, reads the form and runs the action.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	requestID := strings.Join([]string{newID(requestIDChars, 8), newID(requestIDChars, 4), newID(requestIDChars, 4), newID(requestIDChars, 4), newID(requestIDChars, 12)}, "-")
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		writeError(w, requestID, sender(http.StatusBadRequest, "InvalidInput", "reading the request: %v", err))
		return
	}
	if len(body) > maxBody {
		writeError(w, requestID, sender(http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", "request body is larger than %d bytes", maxBody))
		return
	}
	if e := s.authenticate(r, body); e != nil {
		writeError(w, requestID, e)
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, requestID, sender(http.StatusMethodNotAllowed, "InvalidAction", "IAM's query API takes POST, not %s", r.Method))
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		writeError(w, requestID, sender(http.StatusBadRequest, "MalformedQueryString", "%v", err))
		return
	}
	action := form.Get("Action")
	if v := form.Get("Version"); v != apiVersion {
		writeError(w, requestID, sender(http.StatusBadRequest, "InvalidAction", "Could not find operation %s for version %s", action, v))
		return
	}
	op, ok := map[string]func(url.Values) (any, *apiError){
		"CreateRole":       s.createRole,
		"GetRole":          s.getRole,
		"PutRolePolicy":    s.putRolePolicy,
		"GetRolePolicy":    s.getRolePolicy,
		"ListRolePolicies": s.listRolePolicies,
		"DeleteRolePolicy": s.deleteRolePolicy,
		"DeleteRole":       s.deleteRole,
		"ListRoles":        s.listRoles,
		"ListRoleTags":     s.listRoleTags,
	}[action]
	if !ok {
		writeError(w, requestID, sender(http.StatusBadRequest, "InvalidAction", "Could not find operation %s for version %s", action, apiVersion))
		return
	}
	s.mu.Lock()
	result, e := op(form)
	s.mu.Unlock()
	if e != nil {
		writeError(w, requestID, e)
		return
	}
	writeResult(w, requestID, action, result)
}

// signatureCodes are IAM's codes for a refused signature, each answered 403.
var signatureCodes = sigv4check.Codes{
	Unsigned: "MissingAuthenticationToken", UnknownKey: "InvalidClientTokenId", BadSignature: "SignatureDoesNotMatch",
}

// authenticate checks the SigV4 signature and its scope as IAM does (service iam, IAM's one
// signing region), answering with IAM's codes.
func (s *Server) authenticate(r *http.Request, body []byte) *apiError {
	if f := s.o.Keys.Authorize(r, body, "iam", region); f != nil {
		return sender(http.StatusForbidden, f.Code(signatureCodes), "%s", f)
	}
	return nil
}

// names are IAM's role and policy names: 1 to 64 (roles) or 128 (policies) of these characters.
var names = regexp.MustCompile(`^[\w+=,.@-]+$`)

func checkName(field, v string, max int) *apiError {
	if v == "" {
		return validation("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	if len(v) > max {
		return validation("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", v, field, max)
	}
	if !names.MatchString(v) {
		return validation("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+", v, field)
	}
	return nil
}

// checkDocument wants a policy document to be a JSON object, as IAM parses it.
func checkDocument(field, doc string) *apiError {
	if doc == "" {
		return validation("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	var v map[string]any
	if json.Unmarshal([]byte(doc), &v) != nil {
		return sender(http.StatusBadRequest, "MalformedPolicyDocument", "This policy contains invalid Json (%s)", field)
	}
	return nil
}

func (s *Server) role(form url.Values) (*role, *apiError) {
	name := form.Get("RoleName")
	if e := checkName("roleName", name, 64); e != nil {
		return nil, e
	}
	r, ok := s.roles[name]
	if !ok {
		return nil, noSuchEntity("The role with name %s cannot be found.", name)
	}
	return r, nil
}

func (s *Server) createRole(form url.Values) (any, *apiError) {
	name := form.Get("RoleName")
	if e := checkName("roleName", name, 64); e != nil {
		return nil, e
	}
	trust := form.Get("AssumeRolePolicyDocument")
	if e := checkDocument("assumeRolePolicyDocument", trust); e != nil {
		return nil, e
	}
	path := form.Get("Path")
	if path == "" {
		path = "/"
	}
	if !strings.HasPrefix(path, "/") || !strings.HasSuffix(path, "/") {
		return nil, validation("The specified value for path is invalid. It must begin and end with / and contain only alphanumeric characters and/or / characters.")
	}
	maxSession := 3600
	if v := form.Get("MaxSessionDuration"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 3600 || n > 43200 {
			return nil, validation("1 validation error detected: Value '%s' at 'maxSessionDuration' failed to satisfy constraint: Member must be between 3600 and 43200", v)
		}
		maxSession = n
	}
	tags, e := readTags(form)
	if e != nil {
		return nil, e
	}
	if _, ok := s.roles[name]; ok {
		return nil, sender(http.StatusConflict, "EntityAlreadyExists", "Role with name %s already exists.", name)
	}
	r := &role{
		name: name, path: path, description: form.Get("Description"), trust: trust, maxSession: maxSession,
		id:      "AROASTANDIN" + newID(upperAlnum, 10),
		arn:     "arn:aws:iam::" + s.o.AccountID + ":role" + path + name,
		created: time.Now().UTC(), tags: tags, policies: map[string]string{}, put: map[string]time.Time{},
	}
	s.roles[name] = r
	return struct{ Role xmlRole }{r.xml(true)}, nil
}

// readTags reads Tags.member.N.Key and .Value, N from 1, as the SDK's query serializer writes
// them.
func readTags(form url.Values) ([]tag, *apiError) {
	var tags []tag
	for i := 1; ; i++ {
		prefix := "Tags.member." + strconv.Itoa(i) + "."
		if !form.Has(prefix+"Key") && !form.Has(prefix+"Value") {
			break
		}
		k := form.Get(prefix + "Key")
		if k == "" || len(k) > 128 {
			return nil, validation("1 validation error detected: Value '%s' at 'tags.%d.member.key' failed to satisfy constraint: Member must have length between 1 and 128", k, i)
		}
		if slices.ContainsFunc(tags, func(t tag) bool { return t.Key == k }) {
			return nil, sender(http.StatusBadRequest, "InvalidInput", "Duplicate tag keys found. Please note that Tag keys are case insensitive: %s", k)
		}
		tags = append(tags, tag{Key: k, Value: form.Get(prefix + "Value")})
	}
	if len(tags) > 50 {
		return nil, sender(http.StatusConflict, "LimitExceeded", "Cannot exceed quota for TagsPerRole: 50")
	}
	return tags, nil
}

func (s *Server) getRole(form url.Values) (any, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, e
	}
	return struct{ Role xmlRole }{r.xml(true)}, nil
}

func (s *Server) putRolePolicy(form url.Values) (any, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, e
	}
	name := form.Get("PolicyName")
	if e := checkName("policyName", name, 128); e != nil {
		return nil, e
	}
	doc := form.Get("PolicyDocument")
	if e := checkDocument("policyDocument", doc); e != nil {
		return nil, e
	}
	r.policies[name] = doc
	r.put[name] = time.Now() // a changed document propagates afresh
	return struct{}{}, nil
}

func (s *Server) policy(form url.Values) (*role, string, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, "", e
	}
	name := form.Get("PolicyName")
	if e := checkName("policyName", name, 128); e != nil {
		return nil, "", e
	}
	if _, ok := r.policies[name]; !ok {
		return nil, "", noSuchEntity("The role policy with name %s cannot be found.", name)
	}
	return r, name, nil
}

func (s *Server) getRolePolicy(form url.Values) (any, *apiError) {
	r, name, e := s.policy(form)
	if e != nil {
		return nil, e
	}
	return struct{ RoleName, PolicyName, PolicyDocument string }{r.name, name, encodeDocument(r.policies[name])}, nil
}

func (s *Server) deleteRolePolicy(form url.Values) (any, *apiError) {
	r, name, e := s.policy(form)
	if e != nil {
		return nil, e
	}
	delete(r.policies, name)
	delete(r.put, name)
	return struct{}{}, nil
}

func (s *Server) listRolePolicies(form url.Values) (any, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, e
	}
	page, marker, truncated, e := paginate(form, slices.Sorted(maps.Keys(r.policies)))
	if e != nil {
		return nil, e
	}
	return struct {
		PolicyNames members[string]
		IsTruncated bool
		Marker      string `xml:",omitempty"`
	}{members[string]{page}, truncated, marker}, nil
}

func (s *Server) deleteRole(form url.Values) (any, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, e
	}
	if len(r.policies) > 0 {
		return nil, sender(http.StatusConflict, "DeleteConflict", "Cannot delete entity, must delete policies first.")
	}
	delete(s.roles, r.name)
	return struct{}{}, nil
}

func (s *Server) listRoles(form url.Values) (any, *apiError) {
	prefix := form.Get("PathPrefix")
	if prefix == "" {
		prefix = "/"
	}
	var matching []string
	for _, name := range slices.Sorted(maps.Keys(s.roles)) {
		if strings.HasPrefix(s.roles[name].path, prefix) {
			matching = append(matching, name)
		}
	}
	page, marker, truncated, e := paginate(form, matching)
	if e != nil {
		return nil, e
	}
	roles := make([]xmlRole, 0, len(page))
	for _, name := range page {
		// ListRoles leaves out tags, as IAM's does; GetRole and ListRoleTags give them.
		roles = append(roles, s.roles[name].xml(false))
	}
	return struct {
		Roles       members[xmlRole]
		IsTruncated bool
		Marker      string `xml:",omitempty"`
	}{members[xmlRole]{roles}, truncated, marker}, nil
}

func (s *Server) listRoleTags(form url.Values) (any, *apiError) {
	r, e := s.role(form)
	if e != nil {
		return nil, e
	}
	page, marker, truncated, e := paginate(form, r.tags)
	if e != nil {
		return nil, e
	}
	return struct {
		Tags        members[tag]
		IsTruncated bool
		Marker      string `xml:",omitempty"`
	}{members[tag]{page}, truncated, marker}, nil
}

// paginate cuts all at Marker (an opaque position the previous page gave) to MaxItems (default
// 100, 1 to 1000, as IAM's), and gives the next page's marker when more remain.
func paginate[T any](form url.Values, all []T) (page []T, next string, truncated bool, _ *apiError) {
	max := 100
	if v := form.Get("MaxItems"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return nil, "", false, validation("1 validation error detected: Value '%s' at 'maxItems' failed to satisfy constraint: Member must have value between 1 and 1000", v)
		}
		max = n
	}
	start := 0
	if m := form.Get("Marker"); m != "" {
		b, err := base64.RawURLEncoding.DecodeString(m)
		n, convErr := strconv.Atoi(strings.TrimPrefix(string(b), "at:"))
		if err != nil || convErr != nil || !strings.HasPrefix(string(b), "at:") || n < 0 || n > len(all) {
			return nil, "", false, sender(http.StatusBadRequest, "InvalidInput", "Invalid Marker: %s", m)
		}
		start = n
	}
	end := min(start+max, len(all))
	if end < len(all) {
		next = base64.RawURLEncoding.EncodeToString([]byte("at:" + strconv.Itoa(end)))
	}
	return all[start:end], next, next != "", nil
}

// members is a list in IAM's XML: each item a <member>.
type members[T any] struct {
	Items []T `xml:"member"`
}

// xmlRole is IAM's Role element.
type xmlRole struct {
	Path                     string
	RoleName                 string
	RoleId                   string
	Arn                      string
	CreateDate               string
	AssumeRolePolicyDocument string
	Description              string `xml:",omitempty"`
	MaxSessionDuration       int
	Tags                     *members[tag] `xml:",omitempty"`
}

func (r *role) xml(withTags bool) xmlRole {
	x := xmlRole{
		Path: r.path, RoleName: r.name, RoleId: r.id, Arn: r.arn,
		CreateDate:               r.created.Format("2006-01-02T15:04:05Z"),
		AssumeRolePolicyDocument: encodeDocument(r.trust),
		Description:              r.description, MaxSessionDuration: r.maxSession,
	}
	if withTags && len(r.tags) > 0 {
		x.Tags = &members[tag]{slices.Clone(r.tags)}
	}
	return x
}

// encodeDocument URL-encodes a policy document, as IAM answers them (RFC 3986: a space is %20).
func encodeDocument(doc string) string {
	return strings.ReplaceAll(url.QueryEscape(doc), "+", "%20")
}

// iamNamespace is the xmlns of IAM's answers.
const iamNamespace = "https://iam.amazonaws.com/doc/" + apiVersion + "/"

// writeResult answers <ActionResponse><ActionResult>result</ActionResult><ResponseMetadata>.
func writeResult(w http.ResponseWriter, requestID, action string, result any) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `<%sResponse xmlns="%s">`, action, iamNamespace)
	if err := xml.NewEncoder(&buf).EncodeElement(result, xml.StartElement{Name: xml.Name{Local: action + "Result"}}); err != nil {
		writeError(w, requestID, &apiError{status: http.StatusInternalServerError, typ: "Receiver", code: "ServiceFailure", message: err.Error()})
		return
	}
	fmt.Fprintf(&buf, `<ResponseMetadata><RequestId>%s</RequestId></ResponseMetadata></%sResponse>`, requestID, action)
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
}

// writeError answers IAM's ErrorResponse with the error's status.
func writeError(w http.ResponseWriter, requestID string, e *apiError) {
	body := struct {
		XMLName xml.Name `xml:"ErrorResponse"`
		Xmlns   string   `xml:"xmlns,attr"`
		Error   struct {
			Type, Code, Message string
		}
		RequestId string
	}{Xmlns: iamNamespace, RequestId: requestID}
	body.Error.Type, body.Error.Code, body.Error.Message = e.typ, e.code, e.message
	data, _ := xml.Marshal(body) // strings only: cannot fail
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(e.status)
	w.Write(data)
}

const (
	upperAlnum     = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	requestIDChars = "0123456789abcdef"
)

// newID is n random characters of alphabet.
func newID(alphabet string, n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
