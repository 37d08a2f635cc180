package iamstub

// IAM's query protocol: a signed form POST in, IAM's XML envelope or ErrorResponse out.

import (
	"bytes"
	"crypto/rand"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/serverless-claims/claims/harness/standin/sigv4check"
)

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
