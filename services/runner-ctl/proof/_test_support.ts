/** Test support for job proofs: fresh PEM key pairs and a valid version 1 payload. */
import { encodeBase64 } from "./base64.ts";
import type { JobProofPayload } from "./payload.ts";

/** A fresh Ed25519 key pair as PKCS#8 and SPKI PEM text. */
export async function generatePemPair(): Promise<{ privatePem: string; publicPem: string }> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  return { privatePem: pem("PRIVATE KEY", pkcs8), publicPem: pem("PUBLIC KEY", spki) };
}

/** PEM text of one block, 64-character lines. */
export function pem(label: string, der: Uint8Array): string {
  const b64 = encodeBase64(der).replace(/.{1,64}/g, "$&\n");
  return `-----BEGIN ${label}-----\n${b64}-----END ${label}-----\n`;
}

/** A valid version 1 payload for host `host-a`. */
export function samplePayload(): JobProofPayload {
  return {
    version: 1,
    host_id: "host-a",
    scale_set: { id: 7, name: "linux-x64" },
    runner: { id: 42, name: "runner-abc" },
    instance: { project: "runners", name: "runner-abc" },
    job: {
      runner_request_id: 1234567890,
      repository: "octo/hello",
      workflow_ref: "octo/hello/.github/workflows/ci.yml@refs/heads/main",
      workflow_run_id: 99,
      job_display_name: "build",
      event_name: "push",
    },
    times: {
      queued_at: "2026-11-23T10:00:00Z",
      assigned_at: "2026-11-23T10:00:01.5Z",
      signed_at: "2026-11-23T10:00:02.123456789Z",
    },
  };
}
