import assert from "node:assert/strict";
import { decodeBase64, encodeBase64 } from "./base64.ts";
import { signEnvelope, signProof, verifyProof } from "./envelope.ts";
import { ProofError, type ProofErrorCode } from "./errors.ts";
import { importPublicKeyPem, importSigningKeyPem } from "./keys.ts";
import { PAYLOAD_TYPE_V1 } from "./payload.ts";
import { generatePemPair, samplePayload } from "./_test_support.ts";

const enc = (s: string) => new TextEncoder().encode(s);

async function setup() {
  const { privatePem, publicPem } = await generatePemPair();
  const signing = await importSigningKeyPem(privatePem);
  const key = await importPublicKeyPem(publicPem);
  const envelope = await signProof(signing, samplePayload());
  return { signing, key, envelope };
}

type Env = { payload: string; payloadType: string; signatures: Record<string, unknown>[] };

Deno.test("verifyProof", async (t) => {
  const { signing, key, envelope } = await setup();
  const verify = (text: string | Uint8Array, expectedHostId = "host-a") =>
    verifyProof(typeof text === "string" ? enc(text) : text, { key, expectedHostId });
  const rejects = async (text: string | Uint8Array, code: ProofErrorCode, host?: string) => {
    await assert.rejects(verify(text, host), (e) => e instanceof ProofError && e.code === code);
  };
  const mutate = (f: (e: Env) => void) => {
    const e = JSON.parse(envelope) as Env;
    f(e);
    return JSON.stringify(e);
  };
  const resign = async (body: Uint8Array, type = PAYLOAD_TYPE_V1) =>
    JSON.stringify(await signEnvelope(signing, body, type));

  await t.step("accepts a signed proof and returns the exact verified bytes", async () => {
    const e = JSON.parse(envelope) as Env;
    assert.equal(e.payloadType, "application/vnd.runner-ctl.job-proof.v1+json");
    assert.equal(e.signatures[0].keyid, key.keyid);
    assert.match(key.keyid, /^[0-9a-f]{64}$/);
    const out = await verify(envelope);
    assert.equal(out.payloadText, new TextDecoder().decode(decodeBase64(e.payload, "x")));
    assert.deepEqual(out.payload, samplePayload());
  });
  await t.step("accepts URL-safe base64, an empty keyid and unknown envelope fields", async () => {
    const url = (s: string) => s.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    await verify(mutate((e) => {
      e.payload = url(e.payload);
      e.signatures[0].sig = url(e.signatures[0].sig as string);
    }));
    await verify(mutate((e) => delete e.signatures[0].keyid));
    await verify(mutate((e) => (e.signatures[0].keyid = "")));
    await verify(mutate((e) => Object.assign(e, { extra: true })));
  });
  await t.step("rejects a flipped payload byte", async () => {
    const flipped = mutate((e) => {
      const b = decodeBase64(e.payload, "x");
      b[10] ^= 1;
      e.payload = encodeBase64(b);
    });
    await rejects(flipped, "bad_signature");
  });
  await t.step("rejects a flipped signature byte and a short signature", async () => {
    await rejects(
      mutate((e) => {
        const b = decodeBase64(e.signatures[0].sig as string, "x");
        b[0] ^= 0x80;
        e.signatures[0].sig = encodeBase64(b);
      }),
      "bad_signature",
    );
    await rejects(
      mutate((e) => (e.signatures[0].sig = encodeBase64(new Uint8Array(63)))),
      "bad_signature",
    );
  });
  await t.step("rejects another key's signature and a foreign keyid", async () => {
    const other = await importSigningKeyPem((await generatePemPair()).privatePem);
    await rejects(await signProof(other, samplePayload()), "bad_signature");
    await rejects(mutate((e) => (e.signatures[0].keyid = "00".repeat(32))), "bad_signature");
  });
  await t.step("rejects a wrong payload type, even when signed", async () => {
    await rejects(mutate((e) => (e.payloadType = "application/json")), "wrong_payload_type");
    const body = enc(JSON.stringify(samplePayload()));
    await rejects(
      await resign(body, "application/vnd.runner-ctl.job-proof.v2+json"),
      "wrong_payload_type",
    );
    await rejects(
      mutate((e) => (e.payloadType = PAYLOAD_TYPE_V1.toUpperCase())),
      "wrong_payload_type",
    );
  });
  await t.step("rejects zero and two signatures", async () => {
    await rejects(mutate((e) => (e.signatures = [])), "signature_count");
    await rejects(mutate((e) => e.signatures.push(e.signatures[0])), "signature_count");
  });
  await t.step("enforces 64 KiB on the envelope before decoding", async () => {
    const pad = (n: number) =>
      mutate((e) => Object.assign(e, { pad: "" })).replace('"pad":""', `"pad":"${"x".repeat(n)}"`);
    const base = pad(0).length;
    await verify(pad(65536 - base)); // exactly at the limit
    await rejects(pad(65537 - base), "too_large");
    await rejects(new Uint8Array(10 * 65536).fill(0x20), "too_large"); // not even JSON
  });
  await t.step("enforces the decoded payload limit after decoding", async () => {
    // 64 KiB of payload needs over 64 KiB of base64, so the envelope limit binds first at the
    // default; a lowered limit shows the decoded check itself, at, below and above its bound.
    const size = decodeBase64((JSON.parse(envelope) as Env).payload, "x").length;
    for (const [limit, ok] of [[size, true], [size + 1, true], [size - 1, false]] as const) {
      const run = verifyProof(enc(envelope), {
        key,
        expectedHostId: "host-a",
        payloadLimit: limit,
      });
      if (ok) await run;
      else await assert.rejects(run, (e) => e instanceof ProofError && e.code === "too_large");
    }
    const big = new Uint8Array(65537).fill(0x20);
    await assert.rejects(signEnvelope(signing, big), /payload over 65536 bytes/);
  });
  await t.step("rejects bad base64 in payload and signature", async () => {
    await rejects(mutate((e) => (e.payload = "!!!!")), "bad_base64");
    await rejects(mutate((e) => (e.payload = e.payload + "\n")), "bad_base64");
    await rejects(mutate((e) => (e.signatures[0].sig = "a b")), "bad_base64");
  });
  await t.step("rejects malformed envelopes", async () => {
    for (const text of ["", "[]", "null", '{"payload":1}', "{", '"x"']) {
      await rejects(text, "malformed_envelope");
    }
    await rejects(mutate((e) => (e.signatures = {} as never)), "malformed_envelope");
    await rejects(mutate((e) => (e.signatures[0].sig = 5)), "malformed_envelope");
    await rejects(mutate((e) => (e.signatures[0].keyid = 5)), "malformed_envelope");
    await rejects(new Uint8Array([0x7b, 0xff, 0x7d]), "malformed_envelope");
  });
  await t.step("rejects signed payloads with extra fields or not JSON", async () => {
    await rejects(
      await resign(enc(JSON.stringify({ ...samplePayload(), extra: 1 }))),
      "bad_payload",
    );
    await rejects(await resign(enc("not json")), "bad_payload");
    await rejects(await resign(new Uint8Array([0xff])), "bad_payload");
  });
  await t.step("rejects a wrong host", async () => {
    await rejects(envelope, "host_mismatch", "host-b");
    await rejects(envelope, "host_mismatch", "");
  });
});
