/**
 * `runner-ctl proof verify` as a real process, with keys made by `openssl genpkey -algorithm
 * ed25519` / `openssl pkey -pubout`. The process gets only `--allow-read` (no env, no net), which
 * shows it reads no controller configuration or credentials. Every tampered envelope exits
 * non-zero with nothing on stdout.
 */
import assert from "node:assert/strict";
import {
  decodeBase64,
  encodeBase64,
  importSigningKeyPem,
  signEnvelope,
  signProof,
} from "../../services/runner-ctl/proof/mod.ts";
import { samplePayload } from "../../services/runner-ctl/proof/_test_support.ts";

const MAIN = new URL("../../services/runner-ctl/main.ts", import.meta.url).pathname;
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

async function openssl(args: string[], stdin?: string): Promise<string> {
  const child = new Deno.Command("openssl", {
    args,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(enc(stdin));
    await w.close();
  }
  const out = await child.output();
  assert.equal(out.code, 0, dec(out.stderr));
  return dec(out.stdout);
}

async function runVerify(args: string[], stdin?: Uint8Array) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", MAIN, "proof", ...args],
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  if (stdin) {
    const w = child.stdin.getWriter();
    await w.write(stdin);
    await w.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: dec(out.stdout), stderr: dec(out.stderr) };
}

Deno.test("proof verify (real process, openssl keys)", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const privatePem = await openssl(["genpkey", "-algorithm", "ed25519"]);
    const publicPem = await openssl(["pkey", "-pubout"], privatePem);
    const otherPublic = await openssl(
      ["pkey", "-pubout"],
      await openssl(["genpkey", "-algorithm", "ed25519"]),
    );
    const pub = `${dir}/key.pub`;
    const other = `${dir}/other.pub`;
    await Deno.writeTextFile(pub, publicPem);
    await Deno.writeTextFile(other, otherPublic);
    // The private key is used only here, by the signer; the verifier never sees it.
    const signing = await importSigningKeyPem(privatePem);
    const envelope = await signProof(signing, samplePayload());
    const good = `${dir}/good.json`;
    await Deno.writeTextFile(good, envelope);
    const flags = ["--public-key", pub, "--expected-host-id", "host-a"];
    const verifiedText = dec(decodeBase64(JSON.parse(envelope).payload, "x"));

    await t.step("a valid proof prints exactly the verified payload JSON", async () => {
      const r = await runVerify(["verify", good, ...flags]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, verifiedText + "\n");
      assert.deepEqual(JSON.parse(r.stdout), samplePayload());
      assert.equal(r.stderr, "");
    });
    await t.step("reads the proof from stdin with -", async () => {
      const r = await runVerify(["verify", "-", ...flags], enc(envelope));
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, verifiedText + "\n");
    });

    // deno-lint-ignore no-explicit-any
    const mutate = (f: (e: Record<string, any>) => void) => {
      const e = JSON.parse(envelope);
      f(e);
      return JSON.stringify(e);
    };
    const flipPayload = (e: Record<string, string>) => {
      const b = decodeBase64(e.payload, "x");
      b[20] ^= 1;
      e.payload = encodeBase64(b);
    };
    const body = enc(JSON.stringify(samplePayload()));
    const corpus: [string, string | Uint8Array, string[], RegExp][] = [
      ["flipped payload byte", mutate(flipPayload), flags, /signature does not verify/],
      [
        "flipped signature",
        mutate((e) => {
          const b = decodeBase64(e.signatures[0].sig, "x");
          b[5] ^= 4;
          e.signatures[0].sig = encodeBase64(b);
        }),
        flags,
        /signature does not verify/,
      ],
      [
        "wrong type",
        mutate((e) => (e.payloadType = "application/vnd.in-toto+json")),
        flags,
        /payloadType/,
      ],
      [
        "wrong type, signed",
        JSON.stringify(await signEnvelope(signing, body, "application/json")),
        flags,
        /payloadType/,
      ],
      [
        "two signatures",
        mutate((e) => e.signatures.push(e.signatures[0])),
        flags,
        /exactly one signature/,
      ],
      ["no signature", mutate((e) => (e.signatures = [])), flags, /exactly one signature/],
      [
        "oversize envelope",
        mutate((e) => (e.pad = "x".repeat(70_000))),
        flags,
        /envelope over 65536/,
      ],
      ["bad base64", mutate((e) => (e.payload = e.payload.slice(1))), flags, /base64/],
      [
        "extra payload field",
        JSON.stringify(
          await signEnvelope(signing, enc(JSON.stringify({ ...samplePayload(), extra: true }))),
        ),
        flags,
        /unknown field payload.extra/,
      ],
      ["wrong host", envelope, ["--public-key", pub, "--expected-host-id", "host-b"], /host_id/],
      [
        "other key",
        envelope,
        ["--public-key", other, "--expected-host-id", "host-a"],
        /keyid names another key/,
      ],
      ["private key as public key", envelope, [
        "--public-key",
        `${dir}/priv.pem`,
        "--expected-host-id",
        "host-a",
      ], /PUBLIC KEY/],
      ["not JSON", "{oops", flags, /not UTF-8 JSON/],
    ];
    await Deno.writeTextFile(`${dir}/priv.pem`, privatePem);
    await t.step("each tampered envelope exits 1 with nothing on stdout", async () => {
      for (const [name, text, f, message] of corpus) {
        const path = `${dir}/case.json`;
        await Deno.writeFile(path, typeof text === "string" ? enc(text) : text);
        const r = await runVerify(["verify", path, ...f]);
        assert.equal(r.code, 1, name);
        assert.equal(r.stdout, "", name);
        assert.match(r.stderr, message, name);
        assert.ok(!r.stderr.includes("runner-abc"), `${name}: no payload bytes on stderr`);
      }
    });
    await t.step("oversize decoded payload: refused before any signature work", async () => {
      // 64 KiB + 1 of payload cannot fit a 64 KiB envelope, so it is refused as an envelope.
      const big = JSON.stringify({
        payload: encodeBase64(new Uint8Array(65537)),
        payloadType: "x",
        signatures: [{ sig: "" }],
      });
      const path = `${dir}/big.json`;
      await Deno.writeTextFile(path, big);
      const r = await runVerify(["verify", path, ...flags]);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, /over 65536 bytes/);
    });
    await t.step("usage errors exit 2 with nothing on stdout", async () => {
      for (
        const args of [
          ["verify", good, "--public-key", pub],
          ["verify", good, "--expected-host-id", "host-a"],
          ["verify", ...flags],
          ["check", good, ...flags],
          ["verify", good, ...flags, "--config", "/etc/runner-ctl/config.yaml"],
        ]
      ) {
        const r = await runVerify(args);
        assert.equal(r.code, 2, args.join(" "));
        assert.equal(r.stdout, "");
        assert.match(r.stderr, /Usage: runner-ctl proof verify/);
      }
    });
    await t.step("missing files exit 1", async () => {
      const r = await runVerify(["verify", `${dir}/none.json`, ...flags]);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, /file not found/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
