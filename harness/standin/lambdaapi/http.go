package lambdaapi

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/serverless-claims/claims/harness/standin/sigv4check"
)

// apiError is an error answered as Lambda answers it.
type apiError struct {
	status int
	typ    string
	msg    string
}

func (e *apiError) Error() string { return e.typ + ": " + e.msg }

func errf(status int, typ, format string, args ...any) *apiError {
	return &apiError{status: status, typ: typ, msg: fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) *apiError {
	return errf(http.StatusBadRequest, "InvalidParameterValueException", format, args...)
}

// writeError answers e as Lambda does: the type in X-Amzn-ErrorType, and a JSON body.
func writeError(w http.ResponseWriter, e *apiError) {
	w.Header().Set("X-Amzn-ErrorType", e.typ)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]string{"Type": "User", "message": e.msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

var (
	functionPath = regexp.MustCompile(`^/2015-03-31/functions/([^/]+)(/configuration|/invocations)?/?$`)
	tagsPath     = regexp.MustCompile(`^/2017-03-31/tags/(.+)$`)
)

// ServeHTTP checks the request's signature and runs the operation it names.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := requestID()
	w.Header().Set("X-Amzn-RequestId", id)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, errf(http.StatusBadRequest, "InvalidRequestContentException", "reading the body: %v", err))
		return
	}
	if e := s.authorize(r, body); e != nil {
		writeError(w, e)
		return
	}
	if e := s.route(w, r, body, id); e != nil {
		writeError(w, e)
	}
}

// signatureCodes are Lambda's codes for a refused signature, each answered 403.
var signatureCodes = sigv4check.Codes{
	Unsigned: "MissingAuthenticationTokenException", UnknownKey: "UnrecognizedClientException", BadSignature: "InvalidSignatureException",
}

// authorize checks the signature and its scope (service lambda, the stand-in's region).
func (s *Server) authorize(r *http.Request, body []byte) *apiError {
	if f := s.o.Keys.Authorize(r, body, "lambda", s.o.Region); f != nil {
		return errf(http.StatusForbidden, f.Code(signatureCodes), "%s", f)
	}
	return nil
}

// route runs the operation the method and path name.
func (s *Server) route(w http.ResponseWriter, r *http.Request, body []byte, id string) *apiError {
	path := r.URL.Path
	var name string
	if m := functionPath.FindStringSubmatch(path); m != nil {
		name = functionName(m[1])
	} else if m := tagsPath.FindStringSubmatch(path); m != nil {
		name = functionName(m[1])
	}
	if s.takeFault(Throttle, name) {
		w.Header().Set("Retry-After", "1")
		return errf(http.StatusTooManyRequests, "TooManyRequestsException", "Rate Exceeded.")
	}
	switch {
	case r.Method == http.MethodPost && strings.TrimSuffix(path, "/") == "/2015-03-31/functions":
		return s.create(w, body)
	case r.Method == http.MethodGet && strings.TrimSuffix(path, "/") == "/2015-03-31/functions":
		return s.list(w, r)
	case strings.HasPrefix(path, "/2017-03-31/tags/") && (r.Method == http.MethodGet || r.Method == http.MethodPost):
		return s.tagsOf(w, r, name, body)
	}
	m := functionPath.FindStringSubmatch(path)
	if m == nil {
		return errf(http.StatusNotFound, "UnknownOperationException", "%s %s is no operation of this stand-in", r.Method, path)
	}
	switch op := r.Method + " " + m[2]; op {
	case "GET ":
		return s.get(w, name, true)
	case "GET /configuration":
		return s.get(w, name, false)
	case "PUT /configuration":
		return s.update(w, name, body)
	case "POST /invocations":
		return s.invoke(w, r, name, body, id)
	case "DELETE ":
		return s.delete(w, name)
	default:
		return errf(http.StatusNotFound, "UnknownOperationException", "%s %s is no operation of this stand-in", r.Method, path)
	}
}

// functionName is the name in a function name, partial ARN or ARN.
func functionName(s string) string {
	if _, after, ok := strings.Cut(s, ":function:"); ok {
		s = after
	} else if _, after, ok := strings.Cut(s, "function:"); ok {
		s = after
	}
	name, _, _ := strings.Cut(s, ":") // a qualifier
	return name
}

// requestID is a new request id in Lambda's UUID form.
func requestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (s *Server) arn(name string) string {
	return fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", s.o.Region, s.o.AccountID, name)
}

// lookup is the function named name, or ResourceNotFoundException naming it.
func (s *Server) lookup(name string) (*function, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.fns[name]
	if !ok {
		return nil, errf(http.StatusNotFound, "ResourceNotFoundException", "Function not found: %s", s.arn(name))
	}
	return f, nil
}
