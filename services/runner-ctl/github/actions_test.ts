import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { ActionsAuth } from "./auth.ts";
import { joinServiceUrl } from "./actions.ts";
import { loadAppKey } from "./app_jwt.ts";
import { ActionsError } from "./errors.ts";
import { ensureScaleSet, ScaleSetPolicyError } from "./scale_set.ts";
import { githubSetup } from "./_test_support.ts";

const isCode = (code: string) => (e: unknown) => e instanceof ActionsError && e.code === code;

Deno.test("joinServiceUrl appends the path to the base path and adds api-version", () => {
  assert.equal(
    joinServiceUrl("https://h/tenant/1/", "_apis/runtime/runnerscalesets", { name: "a b" }),
    "https://h/tenant/1/_apis/runtime/runnerscalesets?name=a+b&api-version=6.0-preview",
  );
  assert.equal(
    joinServiceUrl("https://h/rest", "/x?api-version=7.0"),
    "https://h/rest/x?api-version=7.0",
  );
});

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
