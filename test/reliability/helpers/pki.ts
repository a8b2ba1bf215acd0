/**
 * A throwaway certificate authority and a server certificate for `localhost` / 127.0.0.1, made with
 * openssl. The CA file is what a spawned service gets as NODE_EXTRA_CA_CERTS, so its webhook
 * deliveries trust the test receiver exactly as they would trust a real one.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface Pki {
  /** Directory holding the files; removed by `dispose`. */
  dir: string;
  /** Path of the CA certificate (PEM), for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  key: string;
  cert: string;
  dispose(): void;
}

export function makePki(): Pki {
  const dir = mkdtempSync(path.join(tmpdir(), "stockroom-reliability-pki-"));
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
    "/CN=Stockroom Reliability Test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  openssl("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost");
  writeFileSync(
    path.join(dir, "server.ext"),
    "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
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
    key: read("server.key"),
    cert: read("server.crt"),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
