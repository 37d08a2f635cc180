// Package tlsca is a certificate authority made at run time, for TLS stand-ins on loopback: a
// DynamoDB stand-in behind TLS, the handshake benchmarks of claim T7. A certificate bundled in the
// repository would expire one day and fail every run from then on, and its private key would be
// public; a CA made by the run itself lives one day, is trusted only by the clients the test hands
// it to, and lets a benchmark choose the key kind of the whole chain.
package tlsca

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// KeyKind is the kind of a certificate's key, spelled as settings and benchmark names spell it.
type KeyKind string

// The key kinds. ECDSA P-256 is what most endpoints serve today and the cheaper handshake; RSA-2048
// is what much of AWS still serves, so it is the one T7 compares it with.
const (
	ECDSAP256 KeyKind = "ecdsa-p256"
	RSA2048   KeyKind = "rsa-2048"
)

// DefaultKeyKind is the kind an empty KeyKind stands for.
const DefaultKeyKind = ECDSAP256

// KeyKinds lists every kind, the default first, for tests and benchmarks that try them all.
func KeyKinds() []KeyKind { return []KeyKind{ECDSAP256, RSA2048} }

// ParseKeyKind reads a kind from a setting. The empty string is the default kind; anything else
// that is not a kind is an error naming the value, so a misspelt setting stops the run before a
// certificate of the wrong kind could be measured.
func ParseKeyKind(s string) (KeyKind, error) {
	switch k := KeyKind(s); k {
	case "":
		return DefaultKeyKind, nil
	case ECDSAP256, RSA2048:
		return k, nil
	}
	return "", fmt.Errorf("key = %q: want %s or %s", s, ECDSAP256, RSA2048)
}

// Validity of every certificate the CA makes. The hour before now absorbs a clock that differs
// between the process that makes a certificate and one that checks it (a Node.js child, a
// container); a day is longer than any run and short enough that a leaked key is soon worthless.
const (
	backdate = time.Hour
	lifetime = 24 * time.Hour
)

// CA is a self-signed certificate authority. Its methods are safe for concurrent use.
type CA struct {
	// Cert is the CA's certificate; do not modify it.
	Cert *x509.Certificate
	key  crypto.Signer
}

// New makes a CA with a fresh key of the given kind (empty for the default), valid from an hour
// ago to a day from now.
func New(kind KeyKind) (*CA, error) {
	kind, err := ParseKeyKind(string(kind))
	if err != nil {
		return nil, fmt.Errorf("tlsca: %w", err)
	}
	key, err := newKey(kind)
	if err != nil {
		return nil, err
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"serverless-claims"}, CommonName: "serverless-claims test CA (" + string(kind) + ")"},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(lifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		// The CA signs leaves directly; it must not be usable to make intermediates.
		MaxPathLenZero: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("tlsca: self-sign the CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("tlsca: parse the CA certificate: %w", err)
	}
	return &CA{Cert: cert, key: key}, nil
}

// Pool is a new pool holding only the CA's certificate, for a client's tls.Config.RootCAs. Each
// call returns a new pool, so a caller that adds to it changes no one else's trust.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// PEM is the CA's certificate in PEM, for a file a client outside the process trusts (the AWS
// SDKs' AWS_CA_BUNDLE, Node.js's NODE_EXTRA_CA_CERTS).
func (ca *CA) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw})
}

// Leaf makes a server certificate signed by the CA, with a fresh key of the given kind (empty for
// the default), for each host: an IP address ("127.0.0.1") becomes an IP SAN, anything else
// ("localhost") a DNS SAN. It is valid from an hour ago to when the CA expires, and carries only
// its own certificate in the chain: a client holds the root, and real servers do not send it.
func (ca *CA) Leaf(kind KeyKind, hosts ...string) (tls.Certificate, error) {
	kind, err := ParseKeyKind(string(kind))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tlsca: %w", err)
	}
	if len(hosts) == 0 {
		// A certificate for no name verifies for no connection: the caller forgot the hosts.
		return tls.Certificate{}, errors.New("tlsca: a leaf needs at least one host")
	}
	key, err := newKey(kind)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := newSerial()
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{Organization: []string{"serverless-claims"}, CommonName: hosts[0]},
		NotBefore:    time.Now().Add(-backdate),
		NotAfter:     ca.Cert.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if kind == RSA2048 {
		// Clients that still offer TLS 1.2's RSA key exchange check for this bit on RSA leaves.
		tmpl.KeyUsage |= x509.KeyUsageKeyEncipherment
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tlsca: sign the leaf for %v: %w", hosts, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tlsca: parse the leaf for %v: %w", hosts, err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// newKey makes a private key of a kind already parsed.
func newKey(kind KeyKind) (crypto.Signer, error) {
	var (
		key crypto.Signer
		err error
	)
	switch kind {
	case ECDSAP256:
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case RSA2048:
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	default:
		return nil, fmt.Errorf("tlsca: no key generator for %q", kind)
	}
	if err != nil {
		return nil, fmt.Errorf("tlsca: generate a %s key: %w", kind, err)
	}
	return key, nil
}

// newSerial is a random 128-bit serial number: two certificates from one CA (or from two CAs a
// client has seen) must not share one, and random serials need no state.
func newSerial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("tlsca: serial number: %w", err)
	}
	return n, nil
}
