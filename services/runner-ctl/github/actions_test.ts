import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { ActionsAuth } from "./auth.ts";
import { ActionsClient } from "./actions.ts";
import { parseConfigUrl } from "./config_url.ts";
import type { HttpDeps } from "./http.ts";
import { loadAppKey } from "./app_jwt.ts";
import { ActionsError } from "./errors.ts";
import { ensureScaleSet, ScaleSetPolicyError } from "./scale_set.ts";
import { githubSetup } from "./_test_support.ts";

const isCode = (code: string) => (e: unknown) => e instanceof ActionsError && e.code === code;

Deno.test("auth chain against the fake service", async (t) => {
  await t.step("PAT → registration token → runner-registration → admin connection", async () => {
    const g = await githubSetup();
    try {
      const conn = await g.auth.connection();
      assert.equal(conn.url, `${g.fake.origin}/tenant/1/`);
      assert.equal(g.auth.fetches, 1);
      await g.auth.connection();
      assert.equal(g.auth.fetches, 1, "cached while far from expiry");
    } finally {
      await g.close();
    }
  });
  await t.step("GitHub App: RS256 JWT → installation token (PKCS#1 key)", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    const app = {
      clientId: "Iv1.abc",
      installationId: 42,
      publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    };
    const g = await githubSetup({
      pats: [],
      app,
      credentials: { kind: "app", clientId: "Iv1.abc", installationId: 42n, key: loadAppKey(pem) },
    });
    try {
      await g.auth.connection();
      assert.equal(g.fake.count("POST", /access_tokens$/), 1);
      // A wrong installation id is refused.
      const wrong = new ActionsAuth({
        configUrl: (await import("./config_url.ts")).parseConfigUrl(g.fake.configUrl),
        credentials: { kind: "app", clientId: "Iv1.abc", installationId: 7n, key: loadAppKey(pem) },
        http: g.http,
      });
      await assert.rejects(wrong.connection(), isCode("not_found"));
    } finally {
      await g.close();
    }
  });
  await t.step(
    "GitHub App: an int64 installation id beyond 2^53 reaches the URL exactly",
    async () => {
      const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
      for (const id of [2n ** 53n + 1n, 2n ** 63n - 1n]) {
        const g = await githubSetup({
          pats: [],
          app: {
            clientId: "Iv1.abc",
            installationId: id,
            publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
          },
          credentials: {
            kind: "app",
            clientId: "Iv1.abc",
            installationId: id,
            key: loadAppKey(pem),
          },
        });
        try {
          await g.auth.connection();
          assert.equal(g.fake.count("POST", new RegExp(`/installations/${id}/access_tokens$`)), 1);
        } finally {
          await g.close();
        }
      }
    },
  );
  await t.step("admin token renewed within 60 s of exp, and after a 401", async () => {
    const g = await githubSetup({ adminTokenTtlMs: 30_000 });
    try {
      await g.auth.connection();
      await g.auth.connection();
      assert.equal(g.auth.fetches, 2, "a token 30 s from expiry is renewed");
    } finally {
      await g.close();
    }
    const h = await githubSetup();
    try {
      await h.actions.runnerGroupId("default");
      const { set } = await ensureScaleSet(h.actions, { name: "rs", runnerGroup: "default" });
      h.fake.expireAdminTokens();
      assert.ok(await h.actions.getScaleSet(1, "rs"));
      assert.equal(h.auth.fetches, 2);
      assert.equal(set.name, "rs");
    } finally {
      await h.close();
    }
  });
  await t.step("a bad PAT fails with unauthorized", async () => {
    const g = await githubSetup({ credentials: { kind: "token", token: "ghp_wrong" } });
    try {
      await assert.rejects(g.auth.connection(), isCode("unauthorized"));
    } finally {
      await g.close();
    }
  });
});

Deno.test("scale set get-or-create and its checks", async (t) => {
  const g = await githubSetup({ groups: ["linux"] });
  try {
    await t.step("creates with one System label and disableUpdate", async () => {
      const { set, created } = await ensureScaleSet(g.actions, {
        name: "rs",
        runnerGroup: "linux",
      });
      assert.equal(created, true);
      assert.equal(set.runnerGroupId, 2);
      assert.deepEqual(set.labels, [{ name: "rs", type: "System" }]);
      const again = await ensureScaleSet(g.actions, { name: "rs", runnerGroup: "linux" });
      assert.equal(again.created, false);
      assert.equal(again.set.id, set.id);
    });
    await t.step(
      "an unknown group is not_found, and a policy error for the scale set",
      async () => {
        await assert.rejects(g.actions.runnerGroupId("nope"), isCode("not_found"));
        await assert.rejects(
          ensureScaleSet(g.actions, { name: "rs", runnerGroup: "nope" }),
          (e: unknown) => e instanceof ScaleSetPolicyError && e.code === "no_runner_group",
        );
      },
    );
    await t.step("a pre-existing set with the wrong label is refused", async () => {
      g.fake.addScaleSet({ name: "bad-label", labels: ["other"], disableUpdate: true });
      await assert.rejects(
        ensureScaleSet(g.actions, { name: "bad-label", runnerGroup: "default" }),
        (e: unknown) => e instanceof ScaleSetPolicyError && e.code === "wrong_labels",
      );
      g.fake.addScaleSet({ name: "two", labels: ["two", "extra"], disableUpdate: true });
      await assert.rejects(
        ensureScaleSet(g.actions, { name: "two", runnerGroup: "default" }),
        (e: unknown) => e instanceof ScaleSetPolicyError && e.code === "wrong_labels",
      );
    });
    await t.step("self-update enabled or absent is refused", async () => {
      for (const [name, flag] of [["upd", false], ["absent", undefined]] as const) {
        g.fake.addScaleSet({ name, disableUpdate: flag });
        await assert.rejects(
          ensureScaleSet(g.actions, { name, runnerGroup: "default" }),
          (e: unknown) => e instanceof ScaleSetPolicyError && e.code === "self_update_enabled",
        );
      }
    });
    await t.step("BOM bodies are read", async () => {
      g.fake.faults.bom = true;
      const { created } = await ensureScaleSet(g.actions, { name: "rs", runnerGroup: "linux" });
      assert.equal(created, false);
      g.fake.faults.bom = false;
    });
  } finally {
    await g.close();
  }
});

Deno.test("sessions, JIT configs and runner removal", async (t) => {
  const g = await githubSetup();
  try {
    const { set } = await ensureScaleSet(g.actions, { name: "rs", runnerGroup: "default" });
    await t.step(
      "a second session of one owner is a 409 session_conflict; delete frees it",
      async () => {
        const s = await g.actions.createSession(set.id, "host-a");
        assert.ok(s.messageQueueUrl && s.messageQueueAccessToken);
        await assert.rejects(g.actions.createSession(set.id, "host-a"), isCode("session_conflict"));
        const r = await g.actions.refreshSession(set.id, s.sessionId);
        assert.notEqual(r.messageQueueAccessToken, s.messageQueueAccessToken);
        await g.actions.deleteSession(set.id, s.sessionId);
        await assert.rejects(g.actions.refreshSession(set.id, s.sessionId), isCode("not_found"));
        const s2 = await g.actions.createSession(set.id, "host-a");
        const other = await g.actions.createSession(set.id, "host-b");
        await g.actions.deleteSession(set.id, s2.sessionId);
        await g.actions.deleteSession(set.id, other.sessionId);
      },
    );
    await t.step("JIT config; a duplicate name is agent_exists", async () => {
      const jit = await g.actions.generateJitConfig(set.id, "rs-1");
      assert.equal(jit.runner.name, "rs-1");
      assert.ok(jit.encodedJITConfig.length > 10);
      await assert.rejects(g.actions.generateJitConfig(set.id, "rs-1"), isCode("agent_exists"));
      assert.equal((await g.actions.getRunnerByName("rs-1"))?.id, jit.runner.id);
      assert.equal((await g.actions.getRunner(jit.runner.id))?.name, "rs-1");
    });
    await t.step("remove: busy runner is job_still_running, then removed, then gone", async () => {
      const jit = await g.actions.generateJitConfig(set.id, "rs-2");
      const s = await g.actions.createSession(set.id, "host-a");
      const job = g.fake.queueJob(set.id);
      assert.deepEqual(
        await g.actions.acquireJobs(set.id, s.messageQueueAccessToken, [job.runnerRequestId]),
        [job.runnerRequestId],
      );
      g.fake.runnerConnect(jit.encodedJITConfig);
      const busy = g.fake.jobs.get(job.runnerRequestId)?.runnerName;
      const busyId = (await g.actions.getRunnerByName(busy!))!.id;
      await assert.rejects(g.actions.removeRunner(busyId), isCode("job_still_running"));
      g.fake.completeJob(job.runnerRequestId);
      assert.equal(await g.actions.removeRunner(busyId), "gone");
      const idle = await g.actions.getRunnerByName(busy === "rs-1" ? "rs-2" : "rs-1");
      assert.equal(await g.actions.removeRunner(idle!.id), "removed");
      assert.equal(await g.actions.getRunner(idle!.id), undefined);
      await g.actions.deleteSession(set.id, s.sessionId);
    });
    await t.step("AcquireJobs needs the queue token, not the admin token", async () => {
      const conn = await g.auth.connection();
      await assert.rejects(g.actions.acquireJobs(set.id, conn.token, [1]), isCode("unauthorized"));
    });
  } finally {
    await g.close();
  }
});

/** Clients over a scripted fetch that records every request; `registration` is the service URL. */
function scripted(registration: string) {
  const seen: string[] = [];
  const http: HttpDeps = {
    userAgent: "t",
    retry: { initialMs: 1, maximumMs: 1, retries: 0 },
    fetch: (input, init) => {
      const u = new URL(String(input));
      seen.push(`${init?.method} ${u.origin}${u.pathname}`);
      if (u.pathname.endsWith("/registration-token")) {
        return Promise.resolve(Response.json({ token: "reg" }, { status: 201 }));
      }
      if (u.pathname.endsWith("/runner-registration")) {
        return Promise.resolve(Response.json({ url: registration, token: "admin" }));
      }
      return Promise.resolve(new Response(null, { status: 204 }));
    },
  };
  const auth = new ActionsAuth({
    configUrl: parseConfigUrl("https://github.com/acme"),
    credentials: { kind: "token", token: "pat" },
    http,
  });
  return { seen, actions: new ActionsClient(auth, http) };
}

const REGISTRATION = [
  "POST https://api.github.com/orgs/acme/actions/runners/registration-token",
  "POST https://api.github.com/actions/runner-registration",
];

Deno.test("an Actions-service URL that is not https without credentials never gets the token", async (t) => {
  for (const url of ["http://evil.example/tenant/", "https://u:p@evil.example/", "file:///x"]) {
    await t.step(url, async () => {
      const { seen, actions } = scripted(url);
      await assert.rejects(actions.getRunner(1), isCode("bad_response"));
      assert.deepEqual(seen, REGISTRATION, "nothing was sent to the returned URL");
    });
  }
  await t.step("another https host is the service GitHub named: used", async () => {
    const { seen, actions } = scripted("https://pipelines.actions.githubusercontent.com/abc/");
    await actions.removeRunner(7);
    assert.deepEqual(seen.slice(2), [
      "DELETE https://pipelines.actions.githubusercontent.com/abc/_apis/distributedtask/pools/0/agents/7",
    ]);
  });
});

Deno.test("ids from the service's answers never leave their path segment", async (t) => {
  const hostile = [
    "../../../../distributedtask/pools/0/agents/5",
    "..",
    "x/../../agents/5",
    "%2e%2e",
    "x?api-version=1",
    "x#y",
  ];
  for (const sessionId of hostile) {
    await t.step(`session id ${sessionId}`, async () => {
      const { seen, actions } = scripted("https://broker.example/rest/");
      await assert.rejects(actions.deleteSession(1, sessionId), isCode("bad_response"));
      await assert.rejects(actions.refreshSession(1, sessionId), isCode("bad_response"));
      assert.deepEqual(seen, REGISTRATION, "no request was made");
    });
  }
  await t.step("a scale set id that is not an integer", async () => {
    const { seen, actions } = scripted("https://broker.example/rest/");
    for (const id of ["1/../../x", -1, 1.5] as unknown as number[]) {
      await assert.rejects(actions.createSession(id, "host"), isCode("bad_response"));
    }
    assert.deepEqual(seen, REGISTRATION);
  });
});
