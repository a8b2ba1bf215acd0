import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface Pki {
  /** Path of the CA certificate (for NODE_EXTRA_CA_CERTS). */
  caFile: string;
  key: string;
  cert: string;
}

/** A throwaway test CA and a server certificate for 127.0.0.2, made with openssl in `dir`. */
export function makePki(dir: string): Pki {
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
    "/CN=Stockroom Bench Test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  openssl("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.2");
  writeFileSync(
    path.join(dir, "server.ext"),
    "subjectAltName=IP:127.0.0.2,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
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
  return {
    caFile: path.join(dir, "ca.crt"),
    key: readFileSync(path.join(dir, "server.key"), "utf8"),
    cert: readFileSync(path.join(dir, "server.crt"), "utf8"),
  };
}
