package results

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/serverless-claims/claims/harness/sys/repo"
)

// plant returns the testdata result with key: value added to its target, marshalled as Write does.
func plant(t *testing.T, key string, value any) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "eventloop-result.json"))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	target, ok := doc["target"].(map[string]any)
	require.True(t, ok, "the testdata result has a target object")
	target[key] = value
	out, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	return out
}

func TestScanSecretsFindsEachKind(t *testing.T) {
	for _, c := range []struct {
		name, key string
		value     any
		kind      string
	}{
		{"access key id", "note", "key AKIAIOSFODNN7EXAMPLE in a message", "AWS access key id"},
		{"temporary access key id", "note", "ASIAIOSFODNN7EXAMPLE", "AWS access key id"},
		{"access key id in an environment line", "env", "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AWS access key id"},
		{"secret access key", "mySecret", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "secret access key"},
		{"secret in an environment line", "env", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "secret access key"},
		{"session token by its key", "token", strings.Repeat("AbCd0123+/", 12), "session token"},
		{"session token by its start", "note", "IQoJb3JpZ2luX2VjEXAMPLE", "session token"},
		{"older session token by its start", "note", "FwoGZXIvYXdzEXAMPLE", "session token"},
		{"credential field", "sessionToken", "x", "credential field"},
		{"account id in an ARN", "role", "arn:aws:iam::123456789012:role/claims-exec", "account id in an ARN"},
		{"account id in a partition's ARN", "fn", "arn:aws-cn:lambda:cn-north-1:123456789012:function:x", "account id in an ARN"},
		{"account id by its key", "accountId", "123456789012", "account id"},
		{"account id as a number", "account", 123456789012, "account id"},
		{"presigned URL", "url", "https://b.s3.example/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=x%2F20261201&X-Amz-Signature=ab", "signed URL"},
		{"query-signed URL", "url", "https://d.cdn.example/k?Expires=1796000000&Signature=abc~&Key-Pair-Id=K", "signed URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			found := ScanSecrets(plant(t, c.key, c.value))
			var kinds []string
			for _, f := range found {
				if strings.HasPrefix(f, c.kind+" at byte") {
					kinds = append(kinds, f)
				}
			}
			assert.NotEmpty(t, kinds, "findings = %q; want a %s (planted %s: %v)", found, c.kind, c.key, c.value)
		})
	}
}

func TestScanSecretsLeavesTheCleanAlone(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "eventloop-result.json"))
	require.NoError(t, err)
	assert.Empty(t, ScanSecrets(data), "findings in the unplanted result; want none")

	for key, value := range map[string]any{
		"function":   "arn:aws:lambda:us-east-1:<account>:function:x",
		"accessKey":  "AKIDCLAIMSSTANDIN", // the stand-ins' static key
		"secret":     "claims-standin-secret",
		"commit":     "c8d364b0c8d364b0c8d364b0c8d364b0c8d364b0", // 40 characters, not under a secret's key
		"digest":     strings.Repeat("0123456789abcdef", 4),      // a SHA-256 under no token's key
		"sessionId":  "1fbf1f020c2c2206",
		"accountIds": "1234567890123", // 13 digits
		// An SDK error's RequestID: 52 capitals and digits, holding an access key id's letters by chance.
		"error": "operation error DynamoDB: GetItem, https response error StatusCode: 400, RequestID: QX7A3T4B2CDEFGHJKLMNPQRSTUVWXYZ234567ABCDEFGHJKLMNPQ, api error AccessDeniedException",
	} {
		found := ScanSecrets(plant(t, key, value))
		assert.Empty(t, found, "findings for %s: %v = %q; want none", key, value, found)
	}
}

func TestAFindingDoesNotRepeatTheSecret(t *testing.T) {
	found := ScanSecrets(plant(t, "mySecret", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))
	require.NotEmpty(t, found)
	for _, f := range found {
		assert.NotContains(t, f, "wJalrXUtnFEMI", "finding = %q; want the value left out", f)
	}
}

func TestSaveRefusesASecret(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(DirEnv, dir)
	res := sample()
	res.Target = map[string]any{"role": "arn:aws:iam::123456789012:role/x"}
	_, err := Save(res)
	require.Error(t, err, "Save of a result holding an account id")
	assert.Contains(t, err.Error(), "account id in an ARN", "error = %q; want it to name the finding", err)
	var files []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	}))
	assert.Empty(t, files, "files written = %v; want none", files)
}

// TestResultsHoldNoSecrets scans every result already written under results/, so that one
// written before a rule was added, or by hand, is caught too.
func TestResultsHoldNoSecrets(t *testing.T) {
	root, err := repo.Root()
	require.NoError(t, err)
	dir := Dir(root)
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		t.Skipf("no results folder %s", dir)
	}
	n := 0
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".json" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		for _, f := range ScanSecrets(data) {
			assert.Fail(t, "secret in a result", "%s: %s; want no credential, account id or signed URL", p, f)
		}
		return nil
	}))
	t.Logf("scanned %d result files under %s", n, dir)
}
