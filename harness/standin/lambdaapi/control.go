package lambdaapi

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/serverless-claims/claims/harness/lambda/lambdalocal"
	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
	"github.com/serverless-claims/claims/harness/standin/managedruntime"
)

// createInput is CreateFunction's body, as far as the stand-in reads it.
type createInput struct {
	FunctionName  string
	Runtime       string
	Role          string
	Handler       string
	MemorySize    *int
	Timeout       *int
	Architectures []string
	Environment   *environment
	Tags          map[string]string
	PackageType   string
	Code          struct{ ZipFile []byte }
}

var (
	namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	rolePattern = regexp.MustCompile(`^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+$`)
)

// machineArch is the architecture, as Lambda names it, this machine runs.
func machineArch() string {
	if runtime.GOARCH == "arm64" {
		return "arm64"
	}
	return "x86_64"
}

func (s *Server) create(w http.ResponseWriter, body []byte) *apiError {
	var in createInput
	if err := json.Unmarshal(body, &in); err != nil {
		return invalid("the request body is not a CreateFunction input: %v", err)
	}
	if !namePattern.MatchString(in.FunctionName) {
		return invalid("FunctionName %q: want 1 to 64 letters, digits, '-' or '_'", in.FunctionName)
	}
	if in.PackageType != "" && in.PackageType != "Zip" {
		return invalid("PackageType %q: this stand-in runs Zip functions only", in.PackageType)
	}
	if !managedruntime.Supported(in.Runtime) {
		return invalid("Runtime %q: this stand-in runs %s, %s, %s and %s only", in.Runtime,
			lambdazip.ProvidedAL2023, lambdazip.ProvidedAL2, lambdazip.NodeJS24, lambdazip.Python311)
	}
	if in.Handler == "" {
		return invalid("Handler: required")
	}
	cfg := configuration{
		FunctionName: in.FunctionName, FunctionArn: s.arn(in.FunctionName), Runtime: in.Runtime, Role: in.Role,
		Handler: in.Handler, Timeout: 3, MemorySize: 128, Version: "$LATEST", PackageType: "Zip",
		Architectures: []string{"x86_64"}, State: "Pending", LastUpdateStatus: "Successful",
	}
	if e := s.configure(&cfg, in.Role, in.MemorySize, in.Timeout, in.Environment); e != nil {
		return e
	}
	if len(in.Architectures) > 1 {
		return invalid("Architectures %v: at most one", in.Architectures)
	}
	if len(in.Architectures) == 1 {
		cfg.Architectures = in.Architectures
	}
	if a := cfg.Architectures[0]; a != "x86_64" && a != "arm64" {
		return invalid("Architectures: %q is no architecture; want arm64 or x86_64", a)
	} else if a != machineArch() {
		return invalid("Architectures: %s cannot run on this machine, which runs %s", a, machineArch())
	}
	if len(in.Code.ZipFile) == 0 {
		return invalid("Code.ZipFile: required (this stand-in takes no S3 code or image)")
	}
	sum := sha256.Sum256(in.Code.ZipFile)
	cfg.CodeSha256, cfg.CodeSize = base64.StdEncoding.EncodeToString(sum[:]), int64(len(in.Code.ZipFile))

	s.mu.Lock()
	if _, dup := s.fns[in.FunctionName]; dup {
		s.mu.Unlock()
		return errf(http.StatusConflict, "ResourceConflictException", "Function already exist: %s", in.FunctionName)
	}
	s.mu.Unlock()
	if cfg.Environment != nil && len(cfg.Environment.Variables) > 0 && s.takeFault(KMSGrant, in.FunctionName) {
		return invalid("%s", kmsGrantMessage(cfg.Role))
	}
	dir, err := os.MkdirTemp(s.t.dir, "code-")
	if err != nil {
		return errf(http.StatusInternalServerError, "ServiceException", "%v", err)
	}
	if err := unpack(dir, in.Code.ZipFile, in.Runtime); err != nil {
		return invalid("Code.ZipFile: %v", err)
	}
	fails := s.takeFault(CreateFails, in.FunctionName)

	s.mu.Lock()
	if _, dup := s.fns[in.FunctionName]; dup {
		s.mu.Unlock()
		return errf(http.StatusConflict, "ResourceConflictException", "Function already exist: %s", in.FunctionName)
	}
	f := &function{name: in.FunctionName, cfg: cfg, tags: maps.Clone(in.Tags), taskRoot: dir, created: time.Now()}
	if f.tags == nil {
		f.tags = map[string]string{}
	}
	f.touch()
	s.fns[in.FunctionName] = f
	out := f.cfg
	gen := f.gen
	s.mu.Unlock()

	if fails {
		s.later(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			f.cfg.State, f.cfg.StateReasonCode = "Failed", "InternalError"
			f.cfg.StateReason = "injected fault CreateFails: the function could not be set up"
		})
	} else {
		s.later(func() { s.prepare(f, gen, false) })
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// kmsGrantMessage is the message Lambda answers a CreateFunction with when it cannot make the
// KMS grant for the function's environment variables, in the form users report it (e.g.
// hashicorp/terraform-provider-aws#4633): the principal KMS does not know yet is the new role.
func kmsGrantMessage(role string) string {
	return "Lambda was unable to configure access to your environment variables because the KMS key is invalid for CreateGrant. " +
		"Please check your KMS key settings. KMS Exception: InvalidArnException KMS Message: ARN does not refer to a valid principal: " + role
}

// memoryQuota is the largest MemorySize the account may set.
func (s *Server) memoryQuota() int {
	if s.o.MaxMemoryMB > 0 {
		return s.o.MaxMemoryMB
	}
	return MaxMemoryDefaultMB
}

// configure checks and sets the settings CreateFunction and UpdateFunctionConfiguration share.
func (s *Server) configure(cfg *configuration, role string, memory, timeout *int, env *environment) *apiError {
	if role != "" || cfg.Role == "" {
		if !rolePattern.MatchString(role) {
			return invalid("Role %q: not a role ARN", role)
		}
		if s.o.RoleAssumable != nil {
			if err := s.o.RoleAssumable(role); err != nil {
				return invalid("The role defined for the function cannot be assumed by Lambda.")
			}
		} else if !strings.Contains(role, "::"+s.o.AccountID+":role/") {
			return invalid("The role defined for the function cannot be assumed by Lambda.")
		}
		cfg.Role = role
	}
	if memory != nil {
		// Lambda answers a size outside its range, or above the account's quota, with a
		// constraint error, not an InvalidParameterValueException.
		if q := s.memoryQuota(); *memory > q {
			return errf(http.StatusBadRequest, "ValidationException",
				"'MemorySize' value failed to satisfy constraint: Member must have value less than or equal to %d", q)
		}
		if *memory < minMemoryMB {
			return errf(http.StatusBadRequest, "ValidationException",
				"'MemorySize' value failed to satisfy constraint: Member must have value greater than or equal to %d", minMemoryMB)
		}
		if _, err := lambdalocal.ShareForMemory(*memory); err != nil {
			return invalid("MemorySize %d: want 128 to 10240 MB", *memory)
		}
		cfg.MemorySize = *memory
	}
	if timeout != nil {
		if *timeout < 1 || *timeout > 900 {
			return invalid("Timeout %d: want 1 to 900 seconds", *timeout)
		}
		cfg.Timeout = *timeout
	}
	if env != nil {
		for k := range env.Variables {
			if reserved[k] {
				return invalid("Environment.Variables: %s is a reserved key", k)
			}
		}
		cfg.Environment = &environment{Variables: maps.Clone(env.Variables)}
	}
	return nil
}

// reserved are variables Lambda sets and a function may not.
var reserved = map[string]bool{
	"AWS_REGION": true, "AWS_DEFAULT_REGION": true, "AWS_ACCESS_KEY_ID": true, "AWS_SECRET_ACCESS_KEY": true,
	"AWS_SESSION_TOKEN": true, "AWS_LAMBDA_FUNCTION_NAME": true, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": true,
	"AWS_LAMBDA_FUNCTION_VERSION": true, "AWS_LAMBDA_RUNTIME_API": true, "_HANDLER": true,
}

// touch marks a configuration change.
func (f *function) touch() {
	f.gen++
	f.cfg.LastModified = time.Now().UTC().Format("2006-01-02T15:04:05.000-0700")
	f.cfg.RevisionId = requestID()
}

// settle ends an injected Conflict's update once its time has passed. Call with Server.mu held.
func (f *function) settle() {
	if !f.busyUntil.IsZero() && time.Now().After(f.busyUntil) {
		f.cfg.LastUpdateStatus, f.busyUntil = "Successful", time.Time{}
	}
}

// unpack writes the zip's files into dir, the function's task root. A custom runtime
// (provided.*) needs an executable bootstrap at the top level; a managed one loads the
// handler's module, whose absence Lambda reports at Init, not at CreateFunction.
func unpack(dir string, data []byte, runtime string) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("not a zip: %v", err)
	}
	custom := runtime == lambdazip.ProvidedAL2023 || runtime == lambdazip.ProvidedAL2
	found := false
	for _, zf := range zr.File {
		if strings.HasSuffix(zf.Name, "/") {
			continue
		}
		clean := filepath.Clean(zf.Name)
		if filepath.IsAbs(clean) || strings.HasPrefix(clean, "..") {
			return fmt.Errorf("entry %q leaves the function's folder", zf.Name)
		}
		dst := filepath.Join(dir, clean)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		rc, err := zf.Open()
		if err != nil {
			return fmt.Errorf("entry %q: %v", zf.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("entry %q: %v", zf.Name, err)
		}
		if err := os.WriteFile(dst, b, zf.Mode().Perm()|0o400); err != nil {
			return err
		}
		if clean == "bootstrap" && custom {
			if zf.Mode().Perm()&0o111 == 0 {
				return fmt.Errorf("bootstrap has mode %v; want it executable", zf.Mode().Perm())
			}
			found = true
		}
	}
	if custom && !found {
		return fmt.Errorf("no bootstrap at the zip's top level; %s runs one", runtime)
	}
	return nil
}

// getOutput is GetFunction's answer.
type getOutput struct {
	Configuration configuration
	Code          struct{ RepositoryType, Location string }
	Tags          map[string]string
}

func (s *Server) get(w http.ResponseWriter, name string, whole bool) *apiError {
	f, e := s.lookup(name)
	if e != nil {
		return e
	}
	s.mu.Lock()
	f.settle()
	out := getOutput{Configuration: f.cfg, Tags: maps.Clone(f.tags)}
	s.mu.Unlock()
	if !whole {
		writeJSON(w, http.StatusOK, out.Configuration)
		return nil
	}
	out.Code.RepositoryType, out.Code.Location = "S3", s.url+"/code/"+name
	writeJSON(w, http.StatusOK, out)
	return nil
}

// updateInput is UpdateFunctionConfiguration's body, as far as the stand-in reads it.
type updateInput struct {
	Role        string
	MemorySize  *int
	Timeout     *int
	Environment *environment
	Handler     string
}

func (s *Server) update(w http.ResponseWriter, name string, body []byte) *apiError {
	var in updateInput
	if err := json.Unmarshal(body, &in); err != nil {
		return invalid("the request body is not an UpdateFunctionConfiguration input: %v", err)
	}
	f, e := s.lookup(name)
	if e != nil {
		return e
	}
	conflict := func() *apiError {
		return errf(http.StatusConflict, "ResourceConflictException",
			"The operation cannot be performed at this time. An update is in progress for resource: %s", s.arn(name))
	}
	if s.takeFault(Conflict, name) {
		s.mu.Lock()
		if f.cfg.LastUpdateStatus != "InProgress" {
			f.cfg.LastUpdateStatus, f.busyUntil = "InProgress", time.Now().Add(conflictFor)
		}
		s.mu.Unlock()
		return conflict()
	}
	s.mu.Lock()
	f.settle()
	if f.cfg.State != "Active" {
		s.mu.Unlock()
		return errf(http.StatusConflict, "ResourceConflictException",
			"The operation cannot be performed at this time. The function is currently in the following state: %s", f.cfg.State)
	}
	if f.cfg.LastUpdateStatus == "InProgress" {
		s.mu.Unlock()
		return conflict()
	}
	cfg := f.cfg
	if e := s.configure(&cfg, in.Role, in.MemorySize, in.Timeout, in.Environment); e != nil {
		s.mu.Unlock()
		return e
	}
	if in.Handler != "" {
		cfg.Handler = in.Handler
	}
	f.cfg = cfg
	f.cfg.LastUpdateStatus = "InProgress"
	f.touch()
	out, gen := f.cfg, f.gen
	s.mu.Unlock()
	keep := s.o.KeepEnvironmentsOnUpdate || s.takeFault(UpdateKeepsEnvironment, name)
	s.later(func() { s.prepare(f, gen, keep) })
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) delete(w http.ResponseWriter, name string) *apiError {
	f, e := s.lookup(name)
	if e != nil {
		return e
	}
	s.mu.Lock()
	delete(s.fns, name)
	f.deleted = true
	s.mu.Unlock()
	s.envMu.Lock()
	s.endEnv(f) // running or frozen
	s.envMu.Unlock()
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) *apiError {
	q := r.URL.Query()
	max := 50
	if v := q.Get("MaxItems"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			return invalid("MaxItems %q: want 1 to 10000", v)
		}
		max = n
	}
	names := s.Functions()
	start := 0
	if m := q.Get("Marker"); m != "" {
		b, err := base64.RawURLEncoding.DecodeString(m)
		if err != nil {
			return invalid("Marker %q: not a marker this stand-in gave", m)
		}
		// The marker is the last name returned; names after it follow, whatever was deleted since.
		start, _ = slices.BinarySearch(names, string(b)+"\x00")
	}
	out := struct {
		Functions  []configuration
		NextMarker *string `json:",omitempty"`
	}{Functions: []configuration{}}
	end := min(start+max, len(names))
	s.mu.Lock()
	for _, n := range names[start:end] {
		if f, ok := s.fns[n]; ok {
			out.Functions = append(out.Functions, f.cfg)
		}
	}
	s.mu.Unlock()
	if end < len(names) {
		m := base64.RawURLEncoding.EncodeToString([]byte(names[end-1]))
		out.NextMarker = &m
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) tagsOf(w http.ResponseWriter, r *http.Request, name string, body []byte) *apiError {
	arn := strings.TrimPrefix(r.URL.Path, "/2017-03-31/tags/")
	if arn != s.arn(name) {
		return invalid("Resource %q: want a function ARN of this account and region", arn)
	}
	f, e := s.lookup(name)
	if e != nil {
		return e
	}
	if r.Method == http.MethodGet {
		s.mu.Lock()
		tags := maps.Clone(f.tags)
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]map[string]string{"Tags": tags})
		return nil
	}
	var in struct{ Tags map[string]string }
	if err := json.Unmarshal(body, &in); err != nil || len(in.Tags) == 0 {
		return invalid("Tags: want at least one tag")
	}
	s.mu.Lock()
	maps.Copy(f.tags, in.Tags)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
	return nil
}
