package tlsca

import (
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// SystemBundleFiles are where Go's crypto/x509 looks for the system's roots on Linux, in its order
// (crypto/x509/root_linux.go): the first that can be read is the system bundle.
var SystemBundleFiles = []string{
	"/etc/ssl/certs/ca-certificates.crt",                // Debian, Ubuntu
	"/etc/pki/tls/certs/ca-bundle.crt",                  // Fedora, RHEL, Amazon Linux 2023
	"/etc/ssl/ca-bundle.pem",                            // openSUSE
	"/etc/pki/tls/cacert.pem",                           // OpenELEC
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", // CentOS, RHEL 7
	"/etc/ssl/cert.pem",                                 // Alpine
}

// Bundle is a trust bundle written for a client in another process: the system's roots with the
// CA appended.
type Bundle struct {
	// Path is the bundle's file, for SSL_CERT_FILE.
	Path string `json:"-"`
	// System is the system bundle it starts from, or "" where the machine has none.
	System string `json:"system"`
	// SystemCerts is how many certificates it took from there.
	SystemCerts int `json:"systemCerts"`
}

// WriteBundle writes to path the system's roots (the first of files that can be read; normally
// SystemBundleFiles) followed by the CA's certificate.
//
// Why not the CA alone: a Go client whose tls.Config has no RootCAs, as a Lambda function's SDK
// client has none, loads the system's roots on its first verification, that is inside its first
// TLS handshake, and that parse is a few milliseconds of CPU, more than the handshake's own
// cryptography. Pointed at this bundle through SSL_CERT_FILE, the client does the same work as on
// Lambda and also trusts the stand-in.
func (ca *CA) WriteBundle(path string, files []string) (Bundle, error) {
	b := Bundle{Path: path}
	var system []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return b, fmt.Errorf("tlsca: the system bundle: %w", err)
		}
		b.System, system = f, data
		break
	}
	b.SystemCerts = countCerts(system)
	if b.System != "" && b.SystemCerts == 0 {
		return b, fmt.Errorf("tlsca: the system bundle %s holds no certificate", b.System)
	}
	var out bytes.Buffer
	out.Write(system)
	if len(system) > 0 && system[len(system)-1] != '\n' {
		out.WriteByte('\n')
	}
	out.Write(ca.PEM())
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		return b, fmt.Errorf("tlsca: writing the bundle: %w", err)
	}
	return b, nil
}

// countCerts counts the PEM CERTIFICATE blocks in data.
func countCerts(data []byte) int {
	n := 0
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return n
		}
		if block.Type == "CERTIFICATE" {
			n++
		}
	}
}
