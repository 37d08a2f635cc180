package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// isolateAWS clears the SDK's default chain's sources: no variables, no shared files, no
// instance metadata, so that nothing reaches beyond loopback.
func isolateAWS(t *testing.T) {
	t.Helper()
	for _, k := range []string{
		"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CA_BUNDLE",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ENDPOINT_URL",
		"AWS_ENDPOINT_URL_LAMBDA", "AWS_ENDPOINT_URL_IAM", "AWS_ENDPOINT_URL_DYNAMODB",
		"CLAIMS_LAMBDA_ARCH", "CLAIMS_LAMBDA_ENDPOINT", "CLAIMS_LIVE_MAX_USD", "CLAIMS_LAMBDA_ROLE_ARN", "CLAIMS_DYNAMODB_TABLE",
	} {
		t.Setenv(k, "")
	}
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

func TestRefusesWhatIsMissingOrWrongBeforeAnyCall(t *testing.T) {
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"no region":      {nil, "no AWS region"},
		"no credentials": {map[string]string{"AWS_REGION": "us-east-1"}, "no AWS credentials"},
		"bad arch":       {map[string]string{"CLAIMS_LAMBDA_ARCH": "i386"}, "CLAIMS_LAMBDA_ARCH"},
		"bad role": {map[string]string{"CLAIMS_LAMBDA_ROLE_ARN": "arn:aws:iam::123456789012:user/x"},
			"arn:aws:iam::<account>:user/x"},
	} {
		t.Run(name, func(t *testing.T) {
			isolateAWS(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out, errs strings.Builder
			code := run(t.Context(), nil, &out, &errs)
			assert.Equal(t, 1, code, "exit status = %d; want 1 (stderr %q)", code, errs.String())
			assert.Contains(t, errs.String(), tc.want, "stderr = %q; want it to say %q", errs.String(), tc.want)
			assert.NotContains(t, errs.String(), "123456789012", "stderr names the account")
			assert.Empty(t, out.String())
		})
	}
}
