package main

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/serverless-claims/claims/harness/standin/ghstub"
)

// gitServer is the stand-in of GitHub's git server for the run's repository: git's own smart
// HTTP server (git http-backend) on loopback over a bare repository, which, as GitHub's does
// for a public repository, serves a fetch to anyone and takes a push only with a token whose
// job has contents: write, given as actions/checkout and tools/git-token.sh give it (an
// Authorization header, basic, x-access-token and the token).
type gitServer struct {
	url    string
	root   string // GIT_PROJECT_ROOT: <owner>/<name> under it is the repository
	srv    *http.Server
	gh     string // the fake gh's state file, whose tokens are the jobs'
	mu     sync.Mutex
	tokens map[string]map[string]string
}

// startGitServer serves the bare repositories under root on a loopback port.
func startGitServer(root, ghState string) (*gitServer, error) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g := &gitServer{url: "http://" + ln.Addr().String(), root: root, gh: ghState, tokens: map[string]map[string]string{}}
	backend := func(user string) http.Handler {
		env := []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}
		if user != "" {
			// http-backend takes a push only from an authenticated user.
			env = append(env, "REMOTE_USER="+user)
		}
		return &cgi.Handler{Path: gitPath, Args: []string{"http-backend"}, Env: env}
	}
	g.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		push := strings.HasSuffix(req.URL.Path, "/git-receive-pack") || req.URL.Query().Get("service") == "git-receive-pack"
		if !push {
			backend("").ServeHTTP(w, req)
			return
		}
		token, ok := g.token(req)
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
			http.Error(w, "Invalid username or token.", http.StatusUnauthorized)
		case g.permission(token, "contents") != "write":
			http.Error(w, "Permission to "+req.URL.Path+" denied to github-actions[bot].", http.StatusForbidden)
		default:
			backend("x-access-token").ServeHTTP(w, req)
		}
	})}
	go g.srv.Serve(ln)
	return g, nil
}

// token is the request's token, from its basic Authorization, where it is one the server knows.
func (g *gitServer) token(req *http.Request) (string, bool) {
	auth, ok := strings.CutPrefix(req.Header.Get("Authorization"), "basic ")
	if !ok {
		auth, ok = strings.CutPrefix(req.Header.Get("Authorization"), "Basic ")
	}
	if !ok {
		return "", false
	}
	raw, err := base64.StdEncoding.DecodeString(auth)
	if err != nil {
		return "", false
	}
	_, token, _ := strings.Cut(string(raw), ":")
	g.mu.Lock()
	defer g.mu.Unlock()
	_, known := g.tokens[token]
	return token, known
}

func (g *gitServer) permission(token, scope string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tokens[token][scope]
}

// grant makes token a job's, with its permissions, for the git server and the fake gh alike.
func (g *gitServer) grant(token string, perms map[string]string) error {
	g.mu.Lock()
	g.tokens[token] = perms
	g.mu.Unlock()
	st, err := ghstub.Read(g.gh)
	if err != nil {
		return err
	}
	if st.Tokens == nil {
		st.Tokens = map[string]map[string]string{}
	}
	st.Tokens[token] = perms
	return ghstub.Write(g.gh, st)
}

func (g *gitServer) close() { g.srv.Close() }

// seed makes the server's copy of repository from the checkout at dir, or brings its default
// branch to dir's HEAD, and gives that commit: the run's github.sha.
func seed(root, repository, dir, branch string) (string, error) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", fmt.Errorf("git rev-parse HEAD in %s: %w", dir, err)
	}
	commit := strings.TrimSpace(string(out))
	bare := filepath.Join(root, repository)
	if _, err := os.Stat(bare); os.IsNotExist(err) {
		if err := os.MkdirAll(filepath.Dir(bare), 0o755); err != nil {
			return "", err
		}
		if out, err := exec.Command("git", "init", "-q", "--bare", "-b", branch, bare).CombinedOutput(); err != nil {
			return "", fmt.Errorf("git init --bare: %w: %s", err, out)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "push", "-q", "--force", bare, "HEAD:refs/heads/"+branch).CombinedOutput(); err != nil {
		return "", fmt.Errorf("git push to the server's copy: %w: %s", err, out)
	}
	return commit, nil
}
