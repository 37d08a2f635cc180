// loopbackCertificate makes a self-signed certificate for IP 127.0.0.1 (P-256) and its key with
// openssl, in a temporary folder removed when the process exits: the tests' HTTPS servers present
// it, and their agents, as CLAIMS_CA_FILE's CAs are by the function's, trust it alone. Made per
// run so that no key is kept in the repository.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let made;

/** loopbackCertificate returns { cert, key, certFile }: the PEM texts and the certificate's file. */
export function loopbackCertificate() {
  if (made) return made;
  const dir = mkdtempSync(join(tmpdir(), "getitem-node-tests-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
    "-keyout", keyFile, "-out", certFile, "-days", "2", "-subj", "/CN=127.0.0.1",
    "-addext", "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:TRUE",
  ], { stdio: ["ignore", "ignore", "pipe"] });
  made = { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8"), certFile };
  return made;
}
