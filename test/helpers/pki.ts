/**
 * A throwaway certificate authority and one server certificate, made with openssl, for tests and the
 * benchmark that need real HTTPS receivers. `caFile` is what a spawned service gets as
 * NODE_EXTRA_CA_CERTS; `ca` is the same PEM for an in-process sender.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface Pki {
  /** Directory holding the files; removed by `dispose`. */
  dir: string;
  /** Path of the CA certificate (PEM). */
  caFile: string;
  ca: string;
  key: string;
  cert: string;
  dispose(): void;
}

export interface PkiOptions {
  /** The server certificate's names: `DNS:…` and `IP:…` entries (default localhost and 127.0.0.1). */
  subjectAltNames?: string[];
  /** Where to make the files (default a new temporary directory). */
  dir?: string;
}

export function makePki(options: PkiOptions = {}): Pki {
  const names = options.subjectAltNames ?? ["DNS:localhost", "IP:127.0.0.1"];
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), "stockroom-test-pki-"));
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "2",
    "-subj",
    "/CN=Stockroom Test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  const commonName = names[0].replace(/^(DNS|IP):/, "");
  openssl("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", `/CN=${commonName}`);
  writeFileSync(
    path.join(dir, "server.ext"),
    `subjectAltName=${names.join(",")}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.crt",
    "-days",
    "2",
    "-extfile",
    "server.ext",
  );
  const read = (name: string) => readFileSync(path.join(dir, name), "utf8");
  return {
    dir,
    caFile: path.join(dir, "ca.crt"),
    ca: read("ca.crt"),
    key: read("server.key"),
    cert: read("server.crt"),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
