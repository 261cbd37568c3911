/**
 * Metrics pushed over OTLP/HTTP to a real receiver (the one image-proxy's tests use): a controller
 * runs one job's whole life (a failed create first, then a runner that starts, takes the job and
 * finishes it) and every instrument of docs/runner-ctl.md#metrics arrives with its unit, kind and
 * attributes; the job's duration is checked against the scenario's clock (moved 120 s while the
 * job runs), the queue time against the fake service's own timestamps. As shipped, the grant lets
 * the SDK read `OTEL_*`; without an endpoint nothing is exported.
 */
import assert from "node:assert/strict";
import { type DecodedMetric, startOtlpReceiver } from "@svc/testing/otlp-receiver";
import { createLogger } from "@svc/shared/log";
import { loadSettings } from "../../services/runner-ctl/load_settings.ts";
import { serve } from "../../services/runner-ctl/serve.ts";
import { startController, waitFor, withSimulation } from "./_test_support.ts";

const EXPECTED: Record<string, { unit: string; kind: DecodedMetric["kind"] }> = {
  "cicd.worker.count": { unit: "{count}", kind: "sum" },
  "runner_ctl.job.queue.duration": { unit: "s", kind: "histogram" },
  "runner_ctl.runner.startup.duration": { unit: "s", kind: "histogram" },
  "runner_ctl.job.duration": { unit: "s", kind: "histogram" },
  "cicd.system.errors": { unit: "{error}", kind: "sum" },
  "runner_ctl.failure_backoff.level": { unit: "{failure}", kind: "gauge" },
  "runner_ctl.incus.operation.duration": { unit: "s", kind: "histogram" },
  "http.client.request.duration": { unit: "s", kind: "histogram" },
  "runner_ctl.listener.last_poll": { unit: "s", kind: "gauge" },
};

function latest(requests: DecodedMetric[][]): Map<string, DecodedMetric> {
  const out = new Map<string, DecodedMetric>();
  for (const batch of requests) for (const m of batch) out.set(m.name, m);
  return out;
}

const JOB_MS = 120_000;

Deno.test("every instrument arrives at an OTLP receiver from one job's whole life", async () => {
  const receiver = startOtlpReceiver();
  try {
    await withSimulation({ github: { longPollMs: 200 } }, async (sim) => {
      const simEnv = sim.env({
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: receiver.url,
        OTEL_METRIC_EXPORT_INTERVAL: "100",
        RUNNER_CTL_CAPACITY_MIN_RUNNERS: "0",
        RUNNER_CTL_CAPACITY_MAX_RUNNERS: "1",
      });
      const env = (k: string) => simEnv[k];
      const client = Deno.createHttpClient({ caCerts: [sim.github.caCert] });
      const lines: Record<string, unknown>[] = [];
      let offset = 0;
      const now = () => Date.now() + offset;
      const started = now();
      sim.incus.faults.failNextCreate = "Failed creating instance record: disk full";
      const ctl = await serve(await loadSettings({ args: [], env }), {
        env,
        logger: createLogger({ write: (l) => lines.push(JSON.parse(l)) }),
        fetch: (input, init) => fetch(input, { ...init, client }),
        handleSignals: false,
        hostname: "metrics-test",
        now,
      });
      let jobDone = false;
      try {
        assert.ok(lines.some((l) => l.msg === "metrics export enabled" && l.url === receiver.url));
        await waitFor(
          "the message session",
          () => lines.some((l) => l.msg === "message session created"),
        );
        const job = sim.github.queueJob();
        await waitFor("the job to start", () => lines.some((l) => l.msg === "job started"), 30_000)
          .catch((err) => {
            throw new Error(`${err.message}: ${lines.map((l) => l.msg).join(" | ")}`);
          });
        assert.ok(lines.some((l) => l.kind === "start_failed"), "the first create failed");
        offset += JOB_MS; // the job runs for two minutes of the scenario's clock
        sim.github.completeJob(job.runnerRequestId);
        jobDone = true;
        await waitFor(
          "its runner removed",
          () => lines.some((l) => l.msg === "runner removed" && l.reason === "job finished"),
        );
        const fake = sim.github.jobs.get(job.runnerRequestId)!;
        const queueS = (Date.parse(fake.runnerAssignTime!) - Date.parse(fake.queueTime)) / 1000;
        await waitFor("an export after the job", () => {
          const m = latest(receiver.requests).get("runner_ctl.job.duration");
          return (m?.points[0]?.count ?? 0) >= 1;
        });
        await ctl.shutdown();
        const got = latest(receiver.requests);
        for (const [name, want] of Object.entries(EXPECTED)) {
          const m = got.get(name);
          assert.ok(m, `${name} exported`);
          assert.equal(m.unit, want.unit, name);
          assert.equal(m.kind, want.kind, name);
          assert.equal(m.resource["service.name"], "runner-ctl");
          for (const p of m.points) {
            assert.equal(p.attributes["runner_ctl.scale_set"], sim.scaleSet, name);
          }
        }
        const one = (name: string) => got.get(name)!.points;
        // Job duration by the scenario's clock: at least the 120 s it was moved, not much more.
        const job1 = one("runner_ctl.job.duration");
        assert.equal(job1.length, 1);
        assert.equal(job1[0].count, 1);
        assert.ok(
          job1[0].sum! >= JOB_MS / 1000 && job1[0].sum! < JOB_MS / 1000 + 30,
          `${job1[0].sum}`,
        );
        assert.equal(job1[0].attributes["cicd.pipeline.result"], "succeeded");
        const queue = one("runner_ctl.job.queue.duration");
        assert.deepEqual([queue[0].count, queue[0].sum], [1, queueS]);
        const startup = one("runner_ctl.runner.startup.duration");
        assert.equal(startup[0].count, 1, "one runner reached Ready");
        assert.ok(startup[0].sum! > 0 && startup[0].sum! < 30);
        const errors = one("cicd.system.errors");
        assert.deepEqual(
          errors.map((
            p,
          ) => [p.attributes["error.type"], p.attributes["cicd.system.component"], p.value]),
          [["start_failed", "runner", 1]],
        );
        assert.equal(one("runner_ctl.failure_backoff.level")[0].value, 0, "reset by Ready");
        const states = new Map(
          one("cicd.worker.count").map((p) => [p.attributes["runner_ctl.runner.state"], p]),
        );
        assert.deepEqual([...states.keys()].sort(), [
          "booting",
          "busy",
          "creating",
          "done",
          "idle",
          "removing",
        ]);
        assert.equal(states.get("idle")!.attributes["cicd.worker.state"], "available");
        assert.equal(states.get("busy")!.attributes["cicd.worker.state"], "busy");
        assert.equal(states.get("booting")!.attributes["cicd.worker.state"], "offline");
        const ops = one("runner_ctl.incus.operation.duration");
        const failedCreate = ops.find((p) =>
          p.attributes["runner_ctl.incus.operation"] === "create" && p.attributes["error.type"]
        );
        assert.equal(failedCreate?.attributes["error.type"], "500");
        const verbs = new Set(
          ops.filter((p) => !p.attributes["error.type"]).map((p) =>
            p.attributes["runner_ctl.incus.operation"]
          ),
        );
        // (no stop: the guest powered itself off after its job)
        assert.deepEqual([...verbs].sort(), ["create", "delete", "start"]);
        const calls = one("http.client.request.duration");
        assert.ok(calls.some((p) =>
          p.attributes["http.request.method"] === "POST" &&
          p.attributes["http.response.status_code"] === 200
        ));
        assert.ok(calls.every((p) => typeof p.attributes["server.address"] === "string"));
        const poll = one("runner_ctl.listener.last_poll")[0].value!;
        assert.ok(poll >= started / 1000 && poll <= now() / 1000, `${poll}`);
      } finally {
        if (!jobDone) sim.github.completeJob(1);
        await ctl.shutdown();
        client.close();
      }
    });
  } finally {
    await receiver.close();
  }
});

Deno.test("as shipped: the OTEL_* grant lets the export run; without an endpoint nothing is sent", async () => {
  const receiver = startOtlpReceiver();
  try {
    await withSimulation({}, async (sim) => {
      const off = startController(sim);
      await waitFor(
        "controller started",
        () => off.lines.some((l) => l.msg === "controller started"),
      );
      assert.equal(off.lines.some((l) => l.msg === "metrics export enabled"), false);
      assert.equal(await off.stop(), 0, off.stderr());
      assert.equal(receiver.requests.length, 0);
      const on = startController(sim, {
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace(/\/v1\/metrics$/, ""),
          OTEL_METRIC_EXPORT_INTERVAL: "100",
        },
      });
      await waitFor("an export", () => latest(receiver.requests).has("cicd.worker.count"));
      assert.equal(await on.stop(), 0, on.stderr());
      assert.doesNotMatch(on.stderr(), /NotCapable|Requires/);
    });
  } finally {
    await receiver.close();
  }
});
