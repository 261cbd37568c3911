import assert from "node:assert/strict";
import { defineSettings } from "./mod.ts";

const settings = defineSettings({
  prefix: "IMGPROXY",
  configFile: { flag: "config", defaultPath: "/etc/imgproxy.yaml" },
  settings: {
    "listen": { type: "string", default: ":8080", help: "listen address" },
    "proxy.shutdown_grace": { type: "duration", default: 30_000, help: "drain time" },
    "log.level": { type: "string", choices: ["debug", "info"], default: "info", help: "level" },
    "bucket": { type: "string", required: true, help: "bucket" },
    "origins": { type: "list", default: [], env: ["IMGPROXY_ORIGINS", "ORIGINS"], help: "o" },
    "token": { type: "string", secret: true, default: "dev-t0ken", flag: false, help: "token" },
    "profiles": { type: "list", flag: false, env: false, help: "file only" },
  },
});
const help = settings.help();
const blocks = help.split(/\n(?= {2}\S)/).map((b) => b.trimStart());
const block = (head: string) => blocks.find((b) => b.startsWith(head))!;

Deno.test("help() lists every key with flag, variable, file key and default", async (t) => {
  await t.step("the configuration file flag comes first", () => {
    assert.match(help, /^ {2}--config path\n {6}YAML configuration file \(default \/etc\/imgproxy/);
    assert.match(block("--config"), /env IMGPROXY_CONFIG/);
  });
  await t.step("every key appears once", () => {
    for (const row of settings.rows) assert.ok(help.includes(`key ${row.key}`) || !row.file);
    assert.equal(blocks.length, settings.rows.length + 1);
  });
  await t.step("durations, strings, lists and choices", () => {
    assert.equal(
      block("--proxy.shutdown-grace"),
      "--proxy.shutdown-grace duration\n      drain time (default 30s)\n" +
        "      env IMGPROXY_PROXY_SHUTDOWN_GRACE; key proxy.shutdown_grace",
    );
    assert.match(block("--listen"), /\(default ":8080"\)/);
    assert.match(block("--origins"), /\(default empty\)\n {6}env IMGPROXY_ORIGINS, ORIGINS;/);
    assert.match(block("--log.level"), /^--log\.level debug\|info\n/);
    assert.match(block("--bucket"), /\(required\)/);
  });
  await t.step("secrets show no default and are not read from the file", () => {
    assert.equal(
      block("token"),
      "token string (no flag)\n      token\n      env IMGPROXY_TOKEN; not read from the file",
    );
    assert.ok(!help.includes("dev-t0ken"));
  });
  await t.step("a file-only key shows where it can be set", () => {
    assert.equal(block("profiles"), "profiles list (no flag)\n      file only\n      key profiles");
  });
});
