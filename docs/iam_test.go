package docs_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/aws/live"
	"github.com/serverless-claims/claims/harness/sys/repo"
)

// The files this test keeps in step with the code (deploy/aws/README.md says where each rule
// below comes from).
const (
	livePolicyFile = "deploy/aws/live-policy.json"
	oidcRoleFile   = "deploy/aws/github-oidc-role.json"
	awsDocFile     = "docs/aws.md"
)

// sdkDirs hold the Go that calls AWS through aws-sdk-go-v2 in a live run: the cold-start runs
// and their clean-up (harness/aws/live, cmd/liveclean), and the Web Functions' role and bucket
// (cmd/liveweb).
var sdkDirs = []string{"harness/aws/live", "cmd/liveclean", "cmd/liveweb"}

// cliDirs hold the Go that runs the AWS CLI (`aws <service> <command>`).
var cliDirs = []string{"cmd/liveweb"}

// signDirs hold the Go that signs HTTP requests itself with SigV4: the requests to IamAuth
// Web Function endpoints (the deploy's /ping and the claims' requests).
var signDirs = []string{"harness/workload/target"}

// sdkPrefix is the IAM service prefix of each aws-sdk-go-v2 service package the live code may use.
var sdkPrefix = map[string]string{
	"lambda": "lambda", "iam": "iam", "dynamodb": "dynamodb", "cloudwatchlogs": "logs", "s3": "s3", "sts": "sts",
}

// renamed are the API operations whose IAM action has another name (Service Authorization
// Reference, each service's "API operations" table; S3: "Required permissions for Amazon S3 API
// operations").
var renamed = map[string]string{
	"lambda:Invoke":         "lambda:InvokeFunction",
	"s3:ListBuckets":        "s3:ListAllMyBuckets",
	"s3:ListObjectVersions": "s3:ListBucketVersions",
	// Every object DeleteObjects names carries a VersionId (checked below): deleting a version
	// is s3:DeleteObjectVersion, not s3:DeleteObject.
	"s3:DeleteObjects": "s3:DeleteObjectVersion",
}

// dependent are the further actions an operation is authorized by when its input sets a field
// (Service Authorization Reference, "Dependent actions"; IAM user guide, "Permissions required
// to tag on create"): tags on create, and a role handed to Lambda.
var dependent = map[string]map[string]string{
	"lambda:CreateFunction": {"Tags": "lambda:TagResource", "Role": "iam:PassRole"},
	"iam:CreateRole":        {"Tags": "iam:TagRole"},
	"dynamodb:CreateTable":  {"Tags": "dynamodb:TagResource"},
	"logs:CreateLogGroup":   {"Tags": "logs:TagResource"},
	"s3:CreateBucket":       {},
}

// cliServices are the AWS CLI's service commands and their IAM prefixes.
var cliServices = map[string]string{
	"lambda-web": "lambda", "lambda": "lambda", "logs": "logs", "s3api": "s3", "iam": "iam", "dynamodb": "dynamodb", "sts": "sts",
}

// cliWaiters are the operations the CLI's waiters poll (the waiter's "operation" in botocore's
// waiters-2.json of the service).
var cliWaiters = map[string]string{
	"lambda-web web-function-endpoint-active": "GetWebFunctionEndpoint",
	"lambda-web web-function-deleted":         "GetWebFunction",
}

// cliDependent are the further actions a CLI command is authorized by, and the sign in the
// package's code that it needs them: a JSON field the command's input is built from, or one of
// its flags.
var cliDependent = map[string]map[string][]string{
	"lambda:CreateWebFunction": {
		// serviceConfig.executionRoleArn: the role is passed to Lambda.
		`json:"executionRoleArn"`: {"iam:PassRole"},
		// codeConfig.s3Object: Lambda reads the bundle with the caller's permissions
		// (docs/aws.md; web-functions-code-s3, Required permissions).
		`json:"s3Object"`: {"s3:GetObject", "s3:GetObjectVersion"},
		"--tags":          {"lambda:TagResource"},
	},
}

// noResource are the actions IAM only grants on "*": their Service Authorization Reference rows
// name no resource type (each lists, or describes, every resource of the account).
var noResource = map[string]bool{
	"lambda:ListFunctions": true, "lambda:ListWebFunctions": true, "iam:ListRoles": true,
	"dynamodb:ListTables": true, "logs:DescribeLogGroups": true, "s3:ListAllMyBuckets": true,
}

// strs is a policy element that is a string or a list of strings.
type strs []string

func (s *strs) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = strs{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*s = many
	return nil
}

type statement struct {
	Sid       string
	Effect    string
	Action    strs
	Resource  strs
	Condition map[string]map[string]any
}

type policy struct {
	Version   string
	Statement []statement
}

// actions are the policy's allowed actions, each with the Sids that allow it.
func (p policy) actions() map[string][]string {
	out := map[string][]string{}
	for _, s := range p.Statement {
		if s.Effect != "Allow" {
			continue
		}
		for _, a := range s.Action {
			out[a] = append(out[a], s.Sid)
		}
	}
	return out
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := repo.Root()
	require.NoError(t, err)
	return root
}

func readPolicy(t *testing.T, path string) policy {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var p policy
	require.NoError(t, json.Unmarshal(raw, &p), "%s is not an IAM policy document", path)
	return p
}

// parseDir parses the package's non-test Go files in dir, all build tags included.
func parseDir(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	require.NotEmpty(t, files, "Go files in %s = none; want the live code", dir)
	return files
}

// uses is what the code calls: each IAM action with where it was found.
type uses map[string][]string

func (u uses) add(action, where string) { u[action] = append(u[action], where) }

func stringLit(e ast.Expr) (string, bool) {
	l, ok := e.(*ast.BasicLit)
	if !ok || l.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(l.Value)
	return s, err == nil
}

// sdkUses reads the AWS operations the Go in dirs calls: each operation's input is a
// composite literal <service>.<Operation>Input, whether passed to the client's method, to a
// paginator (which calls the operation page by page) or to a waiter's Wait (which polls it).
func sdkUses(t *testing.T, root string, dirs []string) uses {
	t.Helper()
	u := uses{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		for _, f := range parseDir(t, fset, filepath.Join(root, dir)) {
			svc := map[string]string{}   // local name -> SDK service package
			types := map[string]string{} // local name -> SDK service's types package
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				rest, ok := strings.CutPrefix(p, "github.com/aws/aws-sdk-go-v2/service/")
				if !ok {
					continue
				}
				name, isTypes := strings.CutSuffix(rest, "/types")
				local := filepath.Base(p)
				if imp.Name != nil {
					local = imp.Name.Name
				}
				if isTypes {
					types[local] = name
				} else if !strings.Contains(rest, "/") {
					svc[local] = rest
				}
			}
			fn := ""
			ast.Inspect(f, func(n ast.Node) bool {
				if d, ok := n.(*ast.FuncDecl); ok {
					fn = d.Name.Name
				}
				lit, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				sel, ok := lit.Type.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				where := fset.Position(lit.Pos()).String()
				where = strings.TrimPrefix(where, root+string(filepath.Separator)) + " in " + fn
				keys := map[string]bool{}
				for _, e := range lit.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok {
							keys[k.Name] = true
						}
					}
				}
				if types[pkg.Name] == "s3" && sel.Sel.Name == "ObjectIdentifier" {
					assert.True(t, keys["VersionId"], "s3 ObjectIdentifier at %s has VersionId = false; want true "+
						"(s3:DeleteObjects is mapped to s3:DeleteObjectVersion only while every object deleted names its version)", where)
				}
				service, ok := svc[pkg.Name]
				op, isInput := strings.CutSuffix(sel.Sel.Name, "Input")
				if !ok || !isInput {
					return true
				}
				prefix, known := sdkPrefix[service]
				if !assert.True(t, known, "IAM prefix of SDK service %s (%s) = unknown; want it in sdkPrefix", service, where) {
					return true
				}
				action := prefix + ":" + op
				if r, ok := renamed[action]; ok {
					action = r
				}
				u.add(action, where)
				deps, listed := dependent[prefix+":"+op]
				for k := range keys {
					if d, ok := deps[k]; ok {
						u.add(d, where+" ("+op+"Input."+k+")")
					} else if k == "Tags" && !listed && strings.HasPrefix(op, "Create") {
						assert.Fail(t, fmt.Sprintf("dependent actions of %s:%s with Tags = unknown; want them in dependent (%s)", prefix, op, where))
					}
				}
				return true
			})
		}
	}
	return u
}

// pascal is an AWS CLI command's operation: create-web-function -> CreateWebFunction.
func pascal(kebab string) string {
	var b strings.Builder
	for _, w := range strings.Split(kebab, "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// cliUses reads the AWS CLI commands the Go in dirs runs: every run of string literals
// `<service>, <command>[, <waiter>]` among a call's arguments or a []string's elements, and
// the flags beside it.
func cliUses(t *testing.T, root string, dirs []string) uses {
	t.Helper()
	u := uses{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files := parseDir(t, fset, filepath.Join(root, dir))
		// The JSON field tags of the package's types, for cliDependent.
		jsonTags := map[string]bool{}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				if fld, ok := n.(*ast.Field); ok && fld.Tag != nil {
					tag, _ := strconv.Unquote(fld.Tag.Value)
					for _, m := range regexp.MustCompile(`json:"[^",]*`).FindAllString(tag, -1) {
						jsonTags[m+`"`] = true
					}
				}
				return true
			})
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				var list []ast.Expr
				switch n := n.(type) {
				case *ast.CallExpr:
					list = n.Args
				case *ast.CompositeLit:
					list = n.Elts
				default:
					return true
				}
				for i := 0; i+1 < len(list); i++ {
					service, ok1 := stringLit(list[i])
					command, ok2 := stringLit(list[i+1])
					prefix, isService := cliServices[service]
					if !ok1 || !ok2 || !isService {
						continue
					}
					where := strings.TrimPrefix(fset.Position(list[i].Pos()).String(), root+string(filepath.Separator))
					op := pascal(command)
					if command == "wait" {
						waiter, ok := "", false
						if i+2 < len(list) {
							waiter, ok = stringLit(list[i+2])
						}
						op, ok = cliWaiters[service+" "+waiter]
						if !assert.True(t, ok, "operation of `aws %s wait %s` (%s) = unknown; want it in cliWaiters", service, waiter, where) {
							continue
						}
					}
					action := prefix + ":" + op
					u.add(action, where+" (aws "+service+" "+command+")")
					flags := map[string]bool{}
					for _, e := range list {
						if s, ok := stringLit(e); ok && strings.HasPrefix(s, "--") {
							flags[s] = true
						}
					}
					for sign, deps := range cliDependent[action] {
						if flags[sign] || jsonTags[sign] {
							for _, d := range deps {
								u.add(d, where+" ("+command+", "+sign+")")
							}
						}
					}
				}
				return true
			})
		}
	}
	return u
}

// signUses reads the requests the Go in dirs signs itself for service lambda: the requests to
// an IamAuth Web Function endpoint, which IAM authorizes as lambda:InvokeWebFunctionEndpoint
// (Lambda developer guide, web-functions-permissions).
func signUses(t *testing.T, root string, dirs []string) uses {
	t.Helper()
	u := uses{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		for _, f := range parseDir(t, fset, filepath.Join(root, dir)) {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "SignHTTP" {
					return true
				}
				for _, a := range call.Args {
					if s, ok := stringLit(a); ok && s == "lambda" {
						u.add("lambda:InvokeWebFunctionEndpoint", strings.TrimPrefix(fset.Position(call.Pos()).String(), root+string(filepath.Separator)))
					}
				}
				return true
			})
		}
	}
	return u
}

// codeUses is every IAM action the live code needs.
func codeUses(t *testing.T, root string) uses {
	t.Helper()
	all := uses{}
	for _, u := range []uses{sdkUses(t, root, sdkDirs), cliUses(t, root, cliDirs), signUses(t, root, signDirs)} {
		for a, w := range u {
			all[a] = append(all[a], w...)
		}
	}
	return all
}

// compareActions reports each action the code needs that the policy lacks, and each the policy
// grants that the code does not need.
func compareActions(t *testing.T, code uses, granted map[string][]string, what string) {
	t.Helper()
	for _, a := range slices.Sorted(maps.Keys(code)) {
		_, ok := granted[a]
		assert.True(t, ok, "%s grants %s = false; want true (the code calls it: %s)", what, a, strings.Join(code[a], "; "))
	}
	for _, a := range slices.Sorted(maps.Keys(granted)) {
		_, ok := code[a]
		assert.True(t, ok, "the live code needs %s = false; want true, since %s grants it (statements %v)", a, what, granted[a])
	}
}

// TestLivePolicyGrantsExactlyWhatTheCodeCalls derives the actions from the code (the SDK
// operations' inputs, the CLI's commands, the signed requests) and wants live-policy.json to
// grant those and no other, each on the run's names where IAM allows a resource, on "*" only
// where it does not.
func TestLivePolicyGrantsExactlyWhatTheCodeCalls(t *testing.T) {
	root := repoRoot(t)
	code := codeUses(t, root)
	require.NotEmpty(t, code, "actions found in the live code = none; want the SDK calls and CLI commands (%v, %v)", sdkDirs, cliDirs)
	p := readPolicy(t, filepath.Join(root, livePolicyFile))
	assert.Equal(t, "2012-10-17", p.Version, "%s Version = %s; want 2012-10-17", livePolicyFile, p.Version)
	compareActions(t, code, p.actions(), livePolicyFile)
	checkResources(t, p)
}

// checkResources wants every action granted on the run's names, except those that take no
// resource, and iam:PassRole only to Lambda.
func checkResources(t *testing.T, p policy) {
	t.Helper()
	sids := map[string]bool{}
	for _, s := range p.Statement {
		assert.Equal(t, "Allow", s.Effect, "statement %s Effect = %s; want Allow", s.Sid, s.Effect)
		assert.False(t, sids[s.Sid], "statement Sid %s appears twice; want each once", s.Sid)
		sids[s.Sid] = true
		star := slices.Contains(s.Resource, "*")
		for _, a := range s.Action {
			assert.NotContains(t, a, "*", "statement %s action %s has a wildcard; want the action spelled out", s.Sid, a)
			assert.Equal(t, noResource[a], star, "statement %s grants %s on \"*\" = %v; want %v (Service Authorization Reference: %s)",
				s.Sid, a, star, noResource[a], map[bool]string{true: "the action names no resource type", false: "the action takes a resource"}[noResource[a]])
		}
		if star {
			assert.Equal(t, strs{"*"}, s.Resource, "statement %s Resource = %v; want only \"*\"", s.Sid, s.Resource)
			continue
		}
		for _, r := range s.Resource {
			assert.Contains(t, r, live.NamePrefix+"*", "statement %s resource %s names the run's %s* = false; want true", s.Sid, r, live.NamePrefix)
		}
		if slices.Contains(s.Action, "iam:PassRole") {
			assert.Equal(t, strs{"iam:PassRole"}, s.Action, "statement %s Action = %v; want iam:PassRole alone, under its condition", s.Sid, s.Action)
			assert.Equal(t, map[string]map[string]any{"StringEquals": {"iam:PassedToService": "lambda.amazonaws.com"}}, s.Condition,
				"statement %s Condition = %v; want iam:PassedToService lambda.amazonaws.com", s.Sid, s.Condition)
			for _, r := range s.Resource {
				// The run's execution roles: claims-<run>-exec (harness/aws/live) and
				// claims-<run>-web-exec (cmd/liveweb).
				for _, role := range []string{live.NamePrefix + "0123abcd-exec", live.NamePrefix + "0123abcd-web-exec"} {
					assert.True(t, globMatch(r, "arn:aws:iam::123456789012:role/"+role), "statement %s resource %s matches role %s = false; want true", s.Sid, r, role)
				}
				assert.False(t, globMatch(r, "arn:aws:iam::123456789012:role/"+live.NamePrefix+"admin"), "statement %s resource %s matches role %sadmin = true; want only the run's -exec roles", s.Sid, r, live.NamePrefix)
			}
		} else {
			assert.Empty(t, s.Condition, "statement %s Condition = %v; want none", s.Sid, s.Condition)
		}
	}
}

// globMatch is IAM's ARN matching: * any run of characters, ? one character.
func globMatch(pattern, s string) bool {
	re := "^" + strings.NewReplacer(`\*`, ".*", `\?`, ".").Replace(regexp.QuoteMeta(pattern)) + "$"
	return regexp.MustCompile(re).MatchString(s)
}

// docPermissions reads docs/aws.md's lists of what an identity needs: the list under
// "### What your identity needs" (the cold-start runs) and the bullet "**What your identity
// needs:**" (the Web Functions). An action names its service (`lambda:CreateFunction`) or takes
// the service of the one before it (`TagResource`).
func docPermissions(t *testing.T, doc string) [][]string {
	t.Helper()
	lines := strings.Split(doc, "\n")
	var lists [][]string
	action := regexp.MustCompile("`(?:([a-z0-9-]+):)?([A-Z][A-Za-z0-9]*)`")
	read := func(text string) []string {
		var out []string
		prefix := ""
		for _, m := range action.FindAllStringSubmatch(text, -1) {
			if m[1] != "" {
				prefix = m[1]
			}
			if prefix != "" {
				out = append(out, prefix+":"+m[2])
			}
		}
		return out
	}
	for i := 0; i < len(lines); i++ {
		switch {
		case lines[i] == "### What your identity needs":
			// The list: from the first "- " line to the first blank line after it.
			var text []string
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(lines[j], "- ") {
				j++
			}
			for ; j < len(lines) && strings.TrimSpace(lines[j]) != ""; j++ {
				text = append(text, lines[j])
			}
			lists = append(lists, read(strings.Join(text, "\n")))
		case strings.HasPrefix(lines[i], "- **What your identity needs:**"):
			text := []string{lines[i]}
			for j := i + 1; j < len(lines) && strings.HasPrefix(lines[j], "  "); j++ {
				text = append(text, lines[j])
			}
			lists = append(lists, read(strings.Join(text, "\n")))
		}
	}
	return lists
}

// TestAWSDocListsThePolicysActions wants docs/aws.md's two lists of permissions to name, between
// them, exactly the actions live-policy.json grants.
func TestAWSDocListsThePolicysActions(t *testing.T) {
	root := repoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, awsDocFile))
	require.NoError(t, err)
	lists := docPermissions(t, string(raw))
	require.Len(t, lists, 2, "lists of permissions in %s = %d; want 2 (the cold-start runs', the Web Functions')", awsDocFile, len(lists))
	// Each list against its own runs: the cold-start runs and their clean-up; the Web
	// Functions' deploy, claims, destroy and clean, which delete their role through
	// live.DeleteLeftovers (its deleteRole alone: cmd/liveweb passes it a KindRole only).
	cold := sdkUses(t, root, []string{"harness/aws/live", "cmd/liveclean"})
	web := uses{}
	for _, u := range []uses{sdkUses(t, root, []string{"cmd/liveweb"}), cliUses(t, root, cliDirs), signUses(t, root, signDirs)} {
		for a, w := range u {
			web[a] = append(web[a], w...)
		}
	}
	cloud, err := os.ReadFile(filepath.Join(root, "cmd/liveweb/cloud.go"))
	require.NoError(t, err)
	require.True(t, strings.Contains(string(cloud), "live.DeleteLeftovers(") && strings.Contains(string(cloud), "Kind: live.KindRole"),
		"cmd/liveweb deletes its role through live.DeleteLeftovers with KindRole = false; want true (this test counts deleteRole's actions for the Web runs)")
	for a, ws := range cold {
		for _, w := range ws {
			if strings.HasSuffix(w, " in deleteRole") {
				web.add(a, w)
			}
		}
	}
	for i, flow := range []uses{cold, web} {
		listed := map[string][]string{}
		for _, a := range lists[i] {
			listed[a] = append(listed[a], fmt.Sprintf("%s list %d", awsDocFile, i+1))
		}
		compareActions(t, flow, listed, fmt.Sprintf("%s list %d", awsDocFile, i+1))
	}
	doc := uses{}
	for i, l := range lists {
		assert.NotEmpty(t, l, "%s list %d = empty; want its actions", awsDocFile, i+1)
		for _, a := range l {
			doc.add(a, fmt.Sprintf("%s list %d", awsDocFile, i+1))
		}
	}
	p := readPolicy(t, filepath.Join(root, livePolicyFile))
	compareActions(t, doc, p.actions(), livePolicyFile)
	for _, f := range []string{livePolicyFile, oidcRoleFile} {
		assert.True(t, strings.Contains(string(raw), f), "%s names %s = false; want true", awsDocFile, f)
	}
}

// TestOIDCRoleTemplateHasThePolicy wants the CloudFormation template's role to hold
// live-policy.json statement for statement, and to trust only GitHub's OIDC provider, for the
// audience sts.amazonaws.com and the repository's branch or environment.
func TestOIDCRoleTemplateHasThePolicy(t *testing.T) {
	root := repoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, oidcRoleFile))
	require.NoError(t, err)
	var tmpl struct {
		Parameters map[string]map[string]any
		Resources  map[string]struct {
			Type       string
			Condition  string
			Properties map[string]json.RawMessage
		}
		Outputs map[string]struct{ Value any }
	}
	require.NoError(t, json.Unmarshal(raw, &tmpl), "%s is not a JSON template", oidcRoleFile)
	var roles, providers []string
	for name, r := range tmpl.Resources {
		switch r.Type {
		case "AWS::IAM::Role":
			roles = append(roles, name)
		case "AWS::IAM::OIDCProvider":
			providers = append(providers, name)
		}
	}
	require.Len(t, roles, 1, "roles in %s = %v; want one", oidcRoleFile, roles)
	require.Len(t, providers, 1, "OIDC providers in %s = %v; want one", oidcRoleFile, providers)
	role, provider := tmpl.Resources[roles[0]], tmpl.Resources[providers[0]]

	// The policy, statement for statement.
	var policies []struct {
		PolicyName     string
		PolicyDocument json.RawMessage
	}
	require.NoError(t, json.Unmarshal(role.Properties["Policies"], &policies))
	require.Len(t, policies, 1, "inline policies of role %s = %d; want 1", roles[0], len(policies))
	var got, want map[string]any
	require.NoError(t, json.Unmarshal(policies[0].PolicyDocument, &got))
	wantRaw, err := os.ReadFile(filepath.Join(root, livePolicyFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(wantRaw, &want))
	assert.Equal(t, want["Version"], got["Version"], "template policy Version = %v; want %v (%s)", got["Version"], want["Version"], livePolicyFile)
	gotSt, _ := got["Statement"].([]any)
	wantSt, _ := want["Statement"].([]any)
	assert.Len(t, gotSt, len(wantSt), "template policy statements = %d; want %d (%s)", len(gotSt), len(wantSt), livePolicyFile)
	for i := range min(len(gotSt), len(wantSt)) {
		assert.True(t, reflect.DeepEqual(wantSt[i], gotSt[i]), "template policy statement %d = %v; want %v (%s statement %d)", i, gotSt[i], wantSt[i], livePolicyFile, i)
	}

	// The provider: GitHub's issuer, for STS.
	var url string
	var clients []string
	require.NoError(t, json.Unmarshal(provider.Properties["Url"], &url))
	require.NoError(t, json.Unmarshal(provider.Properties["ClientIdList"], &clients))
	assert.Equal(t, "https://token.actions.githubusercontent.com", url, "OIDC provider Url = %s; want GitHub Actions' issuer", url)
	assert.Equal(t, []string{"sts.amazonaws.com"}, clients, "OIDC provider ClientIdList = %v; want [sts.amazonaws.com]", clients)

	// The trust policy.
	var trust struct {
		Statement []struct {
			Effect    string
			Principal map[string]any
			Action    strs
			Condition map[string]map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(role.Properties["AssumeRolePolicyDocument"], &trust))
	require.Len(t, trust.Statement, 1, "trust statements = %d; want 1", len(trust.Statement))
	st := trust.Statement[0]
	assert.Equal(t, "Allow", st.Effect, "trust Effect = %s; want Allow", st.Effect)
	assert.Equal(t, strs{"sts:AssumeRoleWithWebIdentity"}, st.Action, "trust Action = %v; want sts:AssumeRoleWithWebIdentity alone", st.Action)
	assert.Equal(t, []string{"Federated"}, slices.Sorted(maps.Keys(st.Principal)), "trust Principal = %v; want Federated only", st.Principal)
	fed, _ := json.Marshal(st.Principal["Federated"])
	assert.Contains(t, string(fed), `{"Ref":"`+providers[0]+`"}`, "trust Federated = %s; want the provider %s", fed, providers[0])
	assert.Equal(t, []string{"StringEquals"}, slices.Sorted(maps.Keys(st.Condition)), "trust Condition operators = %v; want StringEquals only (no wildcard match)", slices.Sorted(maps.Keys(st.Condition)))
	eq := st.Condition["StringEquals"]
	assert.Equal(t, "sts.amazonaws.com", eq["token.actions.githubusercontent.com:aud"], "trust condition aud = %v; want sts.amazonaws.com", eq["token.actions.githubusercontent.com:aud"])
	sub, _ := json.Marshal(eq["token.actions.githubusercontent.com:sub"])
	for _, s := range []string{"repo:${GitHubOwner}/${GitHubRepo}:ref:refs/heads/${AllowedBranch}", "repo:${GitHubOwner}/${GitHubRepo}:environment:${AllowedEnvironment}"} {
		assert.Contains(t, string(sub), `"`+s+`"`, "trust condition sub = %s; want it to allow %s", sub, s)
	}
	assert.NotContains(t, string(sub), "*", "trust condition sub = %s; want no wildcard", sub)
	for _, p := range []string{"GitHubOwner", "GitHubRepo", "AllowedBranch", "AllowedEnvironment", "CreateOIDCProvider", "ExistingOIDCProviderArn"} {
		assert.Contains(t, tmpl.Parameters, p, "template parameter %s = missing; want it", p)
	}
	// The role must not be one the policy lets it change or delete.
	def, _ := tmpl.Parameters["RoleName"]["Default"].(string)
	assert.False(t, def == "" || strings.HasPrefix(def, live.NamePrefix), "RoleName default = %q; want a name not beginning %s (the policy manages roles %s*)", def, live.NamePrefix, live.NamePrefix)

	var arnOut bool
	for _, o := range tmpl.Outputs {
		v, _ := json.Marshal(o.Value)
		arnOut = arnOut || string(v) == `{"Fn::GetAtt":["`+roles[0]+`","Arn"]}`
	}
	assert.True(t, arnOut, "template outputs the role's ARN = false; want an output Fn::GetAtt [%s, Arn]", roles[0])
}
