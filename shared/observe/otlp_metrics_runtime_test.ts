import assert from "node:assert/strict";
import { startOtlpReceiver } from "@svc/testing/otlp-receiver";

const entry = new URL("./testdata/otlp_export_entry.ts", import.meta.url).pathname;
const root = new URL("../../", import.meta.url);

async function run(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { success: out.success, text };
}

Deno.test("the OTLP exporter loads and exports under a service's scoped permissions", async () => {
  const receiver = startOtlpReceiver();
  try {
    const { success, text } = await run(
      ["run", "--allow-net=127.0.0.1", "--allow-env=OTEL_*", entry, receiver.url],
      { OTEL_EXPORTER_OTLP_HEADERS: "x-from-env=yes" },
    );
    assert.ok(success, text);
    assert.equal(receiver.requests.length, 1, text);
    const [runs] = receiver.requests[0];
    assert.equal(runs.name, "entry.runs");
    assert.equal(runs.unit, "{run}");
    assert.deepEqual(runs.points, [{ attributes: { outcome: "ok" }, value: 1 }]);
    assert.equal(receiver.headers[0].get("x-from-env"), "yes", "the SDK reads OTEL_* itself");
  } finally {
    await receiver.close();
  }
});

Deno.test("without --allow-env=OTEL_* the exporter says which permission it needs", async () => {
  const { success, text } = await run(
    ["run", "--allow-net=127.0.0.1", entry, "http://127.0.0.1:1/v1/metrics"],
  );
  assert.equal(success, false);
  assert.match(text, /Cannot export metrics: .* run with --allow-env=OTEL_\*/);
});

// As deploy/compile_test.ts: no real denort can be had here, so any executable stands in; the
// compile still resolves, checks and embeds every module and npm package the binary needs.
Deno.test({
  name: "deno compile embeds the OTLP metrics exporter",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const { success, text } = await run([
        "compile",
        "--node-modules-dir=none",
        "--exclude-unused-npm",
        "--allow-net=127.0.0.1",
        "--allow-env=OTEL_*",
        "--output",
        `${dir}/entry`,
        entry,
      ], { DENORT_BIN: "/bin/true" });
      assert.ok(success, text);
      assert.match(text, /exporter-metrics-otlp-proto\/\*/);
      assert.match(text, /sdk-metrics\/\*/);
      assert.ok((await Deno.stat(`${dir}/entry`)).size > 100_000);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
