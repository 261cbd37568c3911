/**
 * A self-signed TLS certificate for loopback servers under test, made by Debian's `openssl`.
 *
 * @module
 */

/** Where {@linkcode selfSignedCert} wrote the certificate and its key (PEM files). */
export interface CertFiles {
  /** `<dir>/cert.pem` */
  cert: string;
  /** `<dir>/key.pem` */
  key: string;
}

/**
 * Writes a one-day, self-signed RSA-2048 server certificate for `localhost` and `127.0.0.1`
 * (`cert.pem`, `key.pem`) into `dir`. @throws {Error} naming openssl's complaint when it fails.
 *
 * @example Usage
 * ```ts ignore
 * const dir = await Deno.makeTempDir();
 * const { cert, key } = await selfSignedCert(dir);
 * ```
 */
export async function selfSignedCert(dir: string): Promise<CertFiles> {
  const files = { cert: `${dir}/cert.pem`, key: `${dir}/key.pem` };
  const out = await new Deno.Command("openssl", {
    args: [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-addext",
      "basicConstraints=critical,CA:FALSE",
      "-addext",
      "extendedKeyUsage=serverAuth",
      "-keyout",
      files.key,
      "-out",
      files.cert,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `Cannot make a certificate: openssl said ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return files;
}
