// Package functions names this repository's Lambda functions: the cold-start claims' GetItem
// function in each language (GetItem), and its broken builds (Broken). Each function's folder
// holds its code and its own README; harness/lambda/lambdazip builds any of them, and this
// package's test runs every one under the emulator against the DynamoDB stand-in and wants the
// one answer all of them give (results/family/getitem).
package functions

import (
	"fmt"

	"github.com/serverless-claims/claims/harness/lambda/lambdazip"
)

// getItem is the folder of the GetItem function in each language.
var getItem = map[lambdazip.Language]string{
	lambdazip.Go:     "functions/getitem",
	lambdazip.Rust:   "functions/getitem-rust",
	lambdazip.Node:   "functions/getitem-node",
	lambdazip.Python: "functions/getitem-python",
}

// GetItem is the folder, repository-relative, of the GetItem function written in l.
func GetItem(l lambdazip.Language) (string, error) {
	if pkg, ok := getItem[l]; ok {
		return pkg, nil
	}
	return "", fmt.Errorf("no GetItem function in %q; there is one in each of %v", l, lambdazip.Languages)
}

// The broken builds every GetItem function has, as build tags: each breaks one claim's
// premise, for the tests of the claim tests.
const (
	// BrokenTrace leaves the phases' timing off the SDK's call: the function reports phases
	// of no connection (T6).
	BrokenTrace = "brokentrace"
	// BrokenWarmup fails Init when the warm-up fails (T4).
	BrokenWarmup = "brokenwarmup"
	// BrokenWarmClient sends the warm-up through a client, and so a connection pool, of its
	// own: the handler's first call finds no warm connection (T3).
	BrokenWarmClient = "brokenwarmclient"
)

// Broken are the broken builds, each a build tag every GetItem function knows.
var Broken = []string{BrokenTrace, BrokenWarmup, BrokenWarmClient}

// TrustEnv is what makes the function in l trust a stand-in's CA beside the system's roots, the
// way its runtime reads roots, so that its first handshake does the work it does on Lambda:
// bundle is a PEM file of the system's roots and the CA (tlsca.CA.WriteBundle), ca the CA's
// certificate alone. Go's crypto/x509 and rustls-native-certs read SSL_CERT_FILE and
// SSL_CERT_DIR (emptyDir, so that nothing else is loaded); botocore reads AWS_CA_BUNDLE instead
// of the bundle it ships. Node.js verifies against the roots compiled into it, as on Lambda,
// whose nodejs20.x and later runtimes load no other CAs unless told (docs/fidelity.md):
// NODE_EXTRA_CA_CERTS adds the CA alone.
func TrustEnv(l lambdazip.Language, bundle, ca, emptyDir string) map[string]string {
	env := map[string]string{"SSL_CERT_FILE": bundle, "SSL_CERT_DIR": emptyDir}
	switch l {
	case lambdazip.Node:
		env["NODE_EXTRA_CA_CERTS"] = ca
	case lambdazip.Python:
		env["AWS_CA_BUNDLE"] = bundle
	}
	return env
}

// AmazonLinuxCABundle is where Amazon Linux, which Lambda's runtimes run on, keeps the system's
// CA bundle.
const AmazonLinuxCABundle = "/etc/pki/tls/certs/ca-bundle.crt"

// LambdaEnv is what the function in l needs in its configuration on Lambda beyond the claims'
// settings: the Python function's boto3 is Debian's, whose botocore looks for Debian's bundle
// (/etc/ssl/certs/ca-certificates.crt), so it is given Amazon Linux's by AWS_CA_BUNDLE. None for
// the others, which find their roots as on Lambda.
func LambdaEnv(l lambdazip.Language) map[string]string {
	if l == lambdazip.Python {
		return map[string]string{"AWS_CA_BUNDLE": AmazonLinuxCABundle}
	}
	return nil
}
