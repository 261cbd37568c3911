/**
 * A relying party that is not TypeScript: PyJWT (with `cryptography`) verifies mock-oidc's tokens
 * of every algorithm, EdDSA and ES512 included, through `PyJWKClient` against the shipped
 * service's JWKS, checks each key's `x5c` certificate, and follows a key rotation: it refetches
 * the JWKS when a token names a kid it has not seen, and refuses the retired key's token once the
 * grace period is over and its cached JWKS has been refreshed. Skipped (loudly) without PyJWT.
 */
import assert from "node:assert/strict";
import { skipSuite } from "@svc/testing";
import { MockOidc } from "@svc/mock-oidc";
import { ALGORITHMS, startMock } from "./_test_support.ts";

const CLIENT = new URL("./pyjwt_client.py", import.meta.url).pathname;

function pyjwtMissing(): string | undefined {
  try {
    const { code } = new Deno.Command("python3", {
      args: ["-c", "import jwt, cryptography; from jwt.jwk_set_cache import JWKSetCache"],
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return code === 0 ? undefined : "PyJWT (python3 -m pip install pyjwt cryptography)";
  } catch {
    return "python3 with PyJWT (python3 -m pip install pyjwt cryptography)";
  }
}
const ignore = skipSuite({ module: import.meta.url, needs: pyjwtMissing() });

/** The PyJWT relying party for one JWKS URL: one JSON command in, one JSON answer out. */
function relyingParty(jwksUrl: string) {
  const child = new Deno.Command("python3", {
    args: [CLIENT, jwksUrl],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  async function line(): Promise<string> {
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("the PyJWT client exited");
      buffered += value;
    }
    const at = buffered.indexOf("\n");
    const out = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    return out;
  }
  return {
    // deno-lint-ignore no-explicit-any
    async send(command: Record<string, unknown>): Promise<any> {
      await writer.write(new TextEncoder().encode(JSON.stringify(command) + "\n"));
      return JSON.parse(await line());
    },
    async [Symbol.asyncDispose]() {
      await writer.close();
      await lines.cancel();
      assert.equal((await child.status).code, 0);
    },
  };
}

Deno.test({
  name: "PyJWT verifies tokens of all ten algorithms and each key's x5c certificate",
  ignore,
  async fn() {
    const service = await startMock();
    try {
      const oidc = MockOidc.attach(service.url);
      const issuer = oidc.issuerUrl("py");
      const tokens: [string, string][] = [];
      for (const alg of ALGORITHMS) {
        // the issuer's first key is RS256 (kid py); nine more fill its ring of ten
        const kid = alg === "RS256" ? "py" : `k-${alg}`;
        if (alg !== "RS256") await oidc.addKey({ issuer: "py", kid, algorithm: alg });
        const minted = await oidc.mint({ issuer: "py", kid, audience: ["api"], subject: alg });
        assert.equal(minted.algorithm, alg);
        tokens.push([alg, minted.token]);
      }
      await using rp = relyingParty(`${issuer}/jwks`);
      for (const [alg, token] of tokens) {
        const answer = await rp.send({
          op: "verify",
          token,
          algorithms: [alg],
          issuer,
          audience: "api",
        });
        assert.deepEqual(answer, {
          ok: true,
          sub: alg,
          kid: alg === "RS256" ? "py" : `k-${alg}`,
          alg,
        });
      }
      // a token is refused for an algorithm the relying party does not accept
      const refused = await rp.send({
        op: "verify",
        token: tokens.at(-1)![1],
        algorithms: ["ES512"],
        issuer,
        audience: "api",
      });
      assert.equal(refused.ok, false);
      const x5c = await rp.send({ op: "x5c" });
      assert.equal(Object.keys(x5c.keys).length, 10);
      assert.ok(Object.values(x5c.keys).every((ok) => ok === true), JSON.stringify(x5c));
    } finally {
      assert.equal(await service.stop(), 0);
    }
  },
});

Deno.test({
  name: "PyJWKClient follows a rotation and refuses the retired key after the grace period",
  ignore,
  async fn() {
    const service = await startMock();
    try {
      const oidc = MockOidc.attach(service.url);
      const issuer = oidc.issuerUrl("rot");
      const jwksFetches = async () => (await oidc.requests({ endpoint: "jwks" })).length;
      const old = (await oidc.mint({ issuer: "rot", audience: ["api"], subject: "old" })).token;
      await using rp = relyingParty(`${issuer}/jwks`);
      const verify = (token: string) =>
        rp.send({
          op: "verify",
          token,
          algorithms: ["RS256", "EdDSA"],
          issuer,
          audience: "api",
        });
      assert.equal((await verify(old)).sub, "old");
      assert.equal((await verify(old)).sub, "old");
      assert.equal(await jwksFetches(), 1, "the second verification used the cached JWKS");

      // frozen at the relying party's own time (it checks nbf and exp against its wall clock)
      const t0 = Math.floor(Date.now() / 1000) * 1000;
      await oidc.setClock(new Date(t0));
      const { active, retired } = await oidc.rotateKey("rot", {
        kid: "k2",
        algorithm: "EdDSA",
        graceSeconds: 60,
      });
      assert.deepEqual([active.kid, retired.kid, retired.retiredUntil], [
        "k2",
        "rot",
        new Date(t0 + 60_000).toISOString(),
      ]);
      const fresh = (await oidc.mint({ issuer: "rot", audience: ["api"], subject: "new" })).token;
      // an unknown kid: PyJWKClient refetches the JWKS and finds it
      assert.deepEqual(await verify(fresh), { ok: true, sub: "new", kid: "k2", alg: "EdDSA" });
      assert.equal(await jwksFetches(), 2);

      // below the grace bound: the retired key is still published
      await oidc.advanceClock("59s");
      await rp.send({ op: "expire" });
      assert.equal((await verify(old)).ok, true);
      // at the bound (60 s) and above: gone from the JWKS, its token refused once refetched
      await oidc.advanceClock("1s");
      await rp.send({ op: "expire" });
      assert.deepEqual(await verify(old), {
        ok: false,
        error: "PyJWKClientError",
        message: 'Unable to find a signing key that matches: "rot"',
      });
      await oidc.advanceClock("1h");
      await rp.send({ op: "expire" });
      assert.equal((await verify(old)).error, "PyJWKClientError");
      assert.equal((await verify(fresh)).ok, true);
    } finally {
      assert.equal(await service.stop(), 0);
    }
  },
});
