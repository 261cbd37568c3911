import assert from "node:assert/strict";
import { loadSettingsFileDecoder, SettingsError } from "@svc/shared/settings";
import { metricsUrlOf, s3EndpointOf, SETTINGS } from "./settings.ts";

// `resolve` is synchronous; the YAML decoder loads on first use by `load`, so these file cases
// load it first.
await loadSettingsFileDecoder();

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("settings: every key from a flag, an IMGPROXY_* variable or the YAML file", async (t) => {
  await t.step("defaults", () => {
    const { values } = SETTINGS.resolve({ args: ["--bucket", "b"] });
    assert.equal(values.listen, ":8080");
    assert.equal(values.prefix, "");
    assert.equal(values["proxy.readiness_interval"], 10_000);
    assert.equal(values["proxy.readiness_staleness"], 30_000);
    assert.equal(values["proxy.shutdown_delay"], 5_000);
    assert.equal(values["proxy.shutdown_grace"], 30_000);
    assert.equal(values["proxy.max_streams"], 64);
    assert.equal(values["proxy.upstream_idle_timeout"], 30_000);
    assert.equal(values["proxy.write_idle_timeout"], 30_000);
    assert.equal(values["metrics.endpoint"], undefined);
    assert.equal(values["metrics.timeout"], undefined);
    assert.equal(values["metrics.insecure"], false);
    assert.equal(values["s3.force_path_style"], false);
  });
  await t.step("flag > env > file", () => {
    const { values, sources } = SETTINGS.resolve({
      args: ["--proxy.max-streams", "3", "--metrics-insecure"],
      env: env({
        IMGPROXY_PROXY_MAX_STREAMS: "4",
        IMGPROXY_BUCKET: "from-env",
        IMGPROXY_LISTEN: "127.0.0.1:9000",
        IMGPROXY_S3_ENDPOINT: "http://127.0.0.1:9100",
        IMGPROXY_S3_FORCE_PATH_STYLE: "true",
        IMGPROXY_PROXY_UPSTREAM_IDLE_TIMEOUT: "1m30s",
      }),
      file: {
        path: "proxy.yaml",
        text: "bucket: from-file\nregion: eu-west-1\nproxy:\n  max_streams: 5\n" +
          "  write_idle_timeout: 10s\nmetrics:\n  endpoint: 127.0.0.1:4318\n",
      },
    });
    assert.equal(values["proxy.max_streams"], 3);
    assert.equal(sources["proxy.max_streams"], "flag");
    assert.equal(values.bucket, "from-env");
    assert.equal(values.region, "eu-west-1");
    assert.equal(values.listen, "127.0.0.1:9000");
    assert.equal(values["s3.endpoint"], "http://127.0.0.1:9100");
    assert.equal(values["s3.force_path_style"], true);
    assert.equal(values["proxy.upstream_idle_timeout"], 90_000);
    assert.equal(values["proxy.write_idle_timeout"], 10_000);
    assert.equal(values["metrics.endpoint"], "127.0.0.1:4318");
    assert.equal(values["metrics.insecure"], true);
  });
  await t.step("bucket is required", () => {
    assert.throws(() => SETTINGS.resolve({}), SettingsError);
  });
  await t.step("proxy.max_streams at, below and above its bounds", () => {
    const streams = (v: string) =>
      SETTINGS.resolve({ args: ["--bucket", "b", "--proxy.max-streams", v] }).values[
        "proxy.max_streams"
      ];
    assert.equal(streams("1"), 1);
    assert.equal(streams("100000"), 100_000);
    assert.throws(() => streams("0"), SettingsError);
    assert.throws(() => streams("100001"), SettingsError);
    assert.throws(() => streams("many"), SettingsError);
  });
  await t.step("cache.*: defaults, overrides, empty control, refused values", () => {
    const values = (...args: string[]) =>
      SETTINGS.resolve({ args: ["--bucket", "b", ...args] }).values;
    const d = values();
    assert.equal(d["cache.catalog_control"], "public, max-age=60, must-revalidate");
    assert.deepEqual(d["cache.catalog_paths"], ["streams/v1/*.json"]);
    assert.equal(d["cache.artifact_control"], "public, max-age=31536000, immutable");
    assert.deepEqual(d["cache.artifact_paths"], ["images/**"]);
    const set = values(
      "--cache.catalog-paths",
      "streams/v1/*.json, meta/**",
      "--cache.artifact-control",
      "",
    );
    assert.deepEqual(set["cache.catalog_paths"], ["streams/v1/*.json", "meta/**"]);
    assert.equal(set["cache.artifact_control"], "");
    assert.equal(d["proxy.gzip_catalog"], true);
    assert.equal(values("--proxy.gzip-catalog=false")["proxy.gzip_catalog"], false);
    assert.equal(
      SETTINGS.resolve({
        args: ["--bucket", "b"],
        env: (n) => n === "IMGPROXY_PROXY_GZIP_CATALOG" ? "false" : undefined,
      }).values["proxy.gzip_catalog"],
      false,
    );
    const refused: [string[], RegExp][] = [
      [["--cache.catalog-paths", "/streams/*.json"], /cache\.catalog_paths.*empty segment/],
      [["--cache.artifact-paths", "images/../x"], /cache\.artifact_paths.*\.\. segment/],
      [["--cache.artifact-paths", "images/a**"], /cache\.artifact_paths.*whole segment/],
      [
        ["--cache.catalog-control", "max-age=60\r\nX-Secret: 1"],
        /cache\.catalog_control.*directives/,
      ],
      [["--cache.artifact-control", "max-age="], /cache\.artifact_control.*directives/],
    ];
    for (const [args, text] of refused) {
      assert.throws(() => values(...args), (e: unknown) => {
        assert.ok(e instanceof SettingsError);
        assert.match(e.message, text);
        assert.ok(!e.message.includes("Secret") && !e.message.includes("a**"), e.message);
        return true;
      });
    }
  });
  await t.step("secondary.* and failover.*: unset by default, bounds at, below and above", () => {
    const values = (...args: string[]) =>
      SETTINGS.resolve({ args: ["--bucket", "b", ...args] }).values;
    const d = values();
    assert.equal(d["secondary.bucket"], undefined);
    assert.equal(d["secondary.endpoint"], undefined);
    assert.equal(d["secondary.force_path_style"], false);
    assert.equal(d["failover.failures"], 3);
    assert.equal(d["failover.probe_interval"], 10_000);
    assert.equal(values("--failover.failures", "1")["failover.failures"], 1);
    assert.equal(values("--failover.failures", "1000")["failover.failures"], 1000);
    assert.throws(() => values("--failover.failures", "0"), /failover\.failures/);
    assert.throws(() => values("--failover.failures", "1001"), /failover\.failures/);
    assert.equal(values("--failover.probe-interval", "1ms")["failover.probe_interval"], 1);
    assert.throws(() => values("--failover.probe-interval", "0s"), /failover\.probe_interval/);
    assert.equal(
      values("--secondary.endpoint", "http://127.0.0.1:9001")["secondary.endpoint"],
      "http://127.0.0.1:9001",
    );
    assert.throws(
      () => values("--secondary.endpoint", "file:///etc/secret"),
      (e: unknown) =>
        e instanceof SettingsError && /secondary\.endpoint/.test(e.message) &&
        !e.message.includes("secret"),
    );
  });
  await t.step("invalid values name the key, never the value", () => {
    for (
      const args of [
        ["--listen", "nowhere-secret"],
        ["--s3.endpoint", "ftp://secret-host"],
        ["--metrics.endpoint", "https://secret:4318"],
        ["--proxy.shutdown-grace", "secret"],
      ]
    ) {
      assert.throws(() => SETTINGS.resolve({ args: ["--bucket", "b", ...args] }), (e: unknown) => {
        assert.ok(e instanceof SettingsError);
        assert.ok(!e.message.includes("secret"), e.message);
        return true;
      });
    }
  });
  await t.step("unknown YAML keys are refused", () => {
    assert.throws(
      () =>
        SETTINGS.resolve({
          file: { path: "p.yaml", text: "bucket: b\nproxy:\n  max_stream: 1\n" },
        }),
      SettingsError,
    );
  });
});

Deno.test("--help lists every key with its flag, variable and default", () => {
  const help = SETTINGS.help();
  for (
    const [flag, variable] of [
      ["--bucket", "IMGPROXY_BUCKET"],
      ["--region", "IMGPROXY_REGION"],
      ["--prefix", "IMGPROXY_PREFIX"],
      ["--listen", "IMGPROXY_LISTEN"],
      ["--s3.endpoint", "IMGPROXY_S3_ENDPOINT"],
      ["--s3.force-path-style", "IMGPROXY_S3_FORCE_PATH_STYLE"],
      ["--proxy.readiness-interval", "IMGPROXY_PROXY_READINESS_INTERVAL"],
      ["--proxy.readiness-staleness", "IMGPROXY_PROXY_READINESS_STALENESS"],
      ["--proxy.shutdown-delay", "IMGPROXY_PROXY_SHUTDOWN_DELAY"],
      ["--proxy.shutdown-grace", "IMGPROXY_PROXY_SHUTDOWN_GRACE"],
      ["--proxy.max-streams", "IMGPROXY_PROXY_MAX_STREAMS"],
      ["--proxy.upstream-idle-timeout", "IMGPROXY_PROXY_UPSTREAM_IDLE_TIMEOUT"],
      ["--proxy.write-idle-timeout", "IMGPROXY_PROXY_WRITE_IDLE_TIMEOUT"],
      ["--metrics.endpoint", "IMGPROXY_METRICS_ENDPOINT"],
      ["--metrics.timeout", "IMGPROXY_METRICS_TIMEOUT"],
      ["--metrics-insecure", "IMGPROXY_METRICS_INSECURE"],
    ]
  ) {
    assert.ok(help.includes(flag), flag);
    assert.ok(help.includes(variable), variable);
  }
  for (const def of ["10s", "30s", "5s", "64", ":8080"]) assert.ok(help.includes(def), def);
});

Deno.test("s3EndpointOf() prefers s3.endpoint, then AWS_ENDPOINT_URL_S3, then AWS_ENDPOINT_URL", () => {
  const vars = env({ AWS_ENDPOINT_URL_S3: "http://s3", AWS_ENDPOINT_URL: "http://any" });
  assert.equal(s3EndpointOf("http://mine", vars), "http://mine");
  assert.equal(s3EndpointOf(undefined, vars), "http://s3");
  assert.equal(s3EndpointOf(undefined, env({ AWS_ENDPOINT_URL: "http://any" })), "http://any");
  assert.equal(s3EndpointOf(undefined, env({})), undefined);
});

Deno.test("metricsUrlOf() uses HTTPS unless --metrics-insecure, which needs loopback", () => {
  assert.equal(metricsUrlOf(undefined, false), undefined);
  assert.equal(metricsUrlOf("otel:4318", false), "https://otel:4318/v1/metrics");
  assert.equal(metricsUrlOf("127.0.0.1:4318", true), "http://127.0.0.1:4318/v1/metrics");
  assert.equal(metricsUrlOf("[::1]:4318", true), "http://[::1]:4318/v1/metrics");
  assert.equal(metricsUrlOf("localhost:4318", true), "http://localhost:4318/v1/metrics");
  assert.throws(() => metricsUrlOf("otel:4318", true), SettingsError);
  assert.throws(() => metricsUrlOf("10.0.0.1:4318", true), SettingsError);
});
