/**
 * Job-proof configuration at startup: proofs are on when both `job_proof.host_id` and
 * `job_proof.signing_key_file` are set, and setting only one fails startup. The key file must
 * be a regular file of at most 16 KiB holding exactly one PKCS#8 PEM Ed25519 private key; it is
 * read once, here. Errors name the key, never a value or key bytes.
 *
 * @module
 */
import { SettingsError } from "@svc/shared/settings";
import { ProofError } from "./errors.ts";
import { importSigningKeyPem, type SigningKey } from "./keys.ts";
import { readBounded } from "./read_bounded.ts";

/** Limit of the signing key file. */
export const SIGNING_KEY_LIMIT_BYTES = 16 * 1024;

/** Job proofs as enabled at startup. */
export interface JobProofSettings {
  hostId: string;
  key: SigningKey;
}

const HOST = "job_proof.host_id";
const FILE = "job_proof.signing_key_file";
const fail = (key: string, why: string) =>
  new SettingsError(key, `Cannot start: setting "${key}" ${why}`);

/**
 * Resolves job proofs from the two settings: `undefined` when both are empty.
 *
 * @throws {SettingsError} naming the setting at fault.
 */
export async function loadJobProofSettings(
  values: { [HOST]: string; [FILE]: string },
): Promise<JobProofSettings | undefined> {
  const hostId = values[HOST];
  const file = values[FILE];
  if (!hostId && !file) return undefined;
  if (!file) throw fail(FILE, `is required when ${HOST} is set`);
  if (!hostId) throw fail(HOST, `is required when ${FILE} is set`);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(file);
  } catch {
    throw fail(FILE, "names a file that cannot be read");
  }
  if (!info.isFile) throw fail(FILE, "does not name a regular file");
  if (info.size > SIGNING_KEY_LIMIT_BYTES) {
    throw fail(FILE, `names a file larger than ${SIGNING_KEY_LIMIT_BYTES} bytes`);
  }
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readBounded(file, SIGNING_KEY_LIMIT_BYTES);
  } catch {
    throw fail(FILE, "names a file that cannot be read");
  }
  if (bytes === undefined) {
    throw fail(FILE, `names a file larger than ${SIGNING_KEY_LIMIT_BYTES} bytes`);
  }
  try {
    return { hostId, key: await importSigningKeyPem(new TextDecoder().decode(bytes)) };
  } catch (err) {
    if (err instanceof ProofError) {
      throw fail(FILE, "must hold exactly one PKCS#8 PEM Ed25519 private key");
    }
    throw err;
  } finally {
    bytes.fill(0);
  }
}
