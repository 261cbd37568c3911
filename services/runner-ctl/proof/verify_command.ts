/**
 * `runner-ctl proof verify <proof> --public-key FILE --expected-host-id H`: authenticates one
 * DSSE job proof (a file, or `-` for stdin) against an enrolled Ed25519 public key (PEM
 * SubjectPublicKeyInfo, as `openssl pkey -pubout` writes it) and the expected host identity.
 * Reads no controller configuration, environment or signing key. On success stdout holds only
 * the verified payload JSON (its exact bytes, then a newline); on any failure stdout stays empty,
 * one error line goes to stderr and the exit code is 1 (2 for a usage error).
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { MainIo } from "@svc/shared/main";
import { PROOF_LIMIT_BYTES, verifyProof } from "./envelope.ts";
import { ProofError } from "./errors.ts";
import { importPublicKeyPem } from "./keys.ts";
import { readBounded } from "./read_bounded.ts";

/** Usage of the `proof` subcommand. */
const PROOF_USAGE =
  "Usage: runner-ctl proof verify <proof|-> --public-key FILE --expected-host-id HOST";

/** Limit of the public key file (as the signing key file's). */
const PUBLIC_KEY_LIMIT_BYTES = 16 * 1024;

/** Runs `proof <args>`; resolves to the exit code. */
export async function proofCommand(args: string[], io: MainIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        "public-key": { type: "string" },
        "expected-host-id": { type: "string" },
      },
    });
  } catch {
    return usage(io, "unknown or malformed flag");
  }
  const { positionals, values } = parsed;
  if (positionals.length !== 2 || positionals[0] !== "verify") {
    return usage(io, "expected: proof verify <proof>");
  }
  const keyFile = values["public-key"];
  const host = values["expected-host-id"];
  if (!keyFile) return usage(io, "--public-key is required");
  if (!host) return usage(io, "--expected-host-id is required");
  try {
    const keyPem = await readBounded(keyFile, PUBLIC_KEY_LIMIT_BYTES);
    if (keyPem === undefined) throw new ProofError("bad_key", "Cannot load public key: too large");
    const key = await importPublicKeyPem(new TextDecoder().decode(keyPem));
    const envelope = await readBounded(positionals[1], PROOF_LIMIT_BYTES);
    if (envelope === undefined) {
      throw new ProofError(
        "too_large",
        `Cannot verify proof: envelope over ${PROOF_LIMIT_BYTES} bytes`,
      );
    }
    const { payloadText } = await verifyProof(envelope, { key, expectedHostId: host });
    io.out(payloadText);
    return 0;
  } catch (err) {
    io.err(`runner-ctl proof verify: ${describe(err)}`);
    return 1;
  }
}

function describe(err: unknown): string {
  if (err instanceof ProofError) return err.message;
  if (err instanceof Deno.errors.NotFound) return "Cannot read input: file not found";
  if (err instanceof Deno.errors.PermissionDenied) return "Cannot read input: permission denied";
  return "Cannot read input: " + (err instanceof Error ? err.name : "unknown error");
}

function usage(io: MainIo, why: string): number {
  io.err(`runner-ctl proof: ${why}\n${PROOF_USAGE}`);
  return 2;
}
