import assert from "node:assert/strict";
import { defineSettings } from "../../shared/settings/mod.ts";
import { DOCUMENTS, settingsTable, unpadded, withTable } from "./docs_settings.ts";

Deno.test("each contract in docs/ carries its service's settings table as the code defines it", async () => {
  for (const [path, source] of Object.entries(DOCUMENTS)) {
    const text = await Deno.readTextFile(new URL(`../../${path}`, import.meta.url));
    assert.equal(
      unpadded(withTable(text, source)),
      unpadded(text),
      `${path} is stale: run deno run -A tests/repo/docs_settings.ts`,
    );
  }
});

Deno.test("settingsTable renders flags, variables, bounds, defaults and secrets", () => {
  const table = defineSettings({
    prefix: "X",
    configFile: { flag: "config" },
    settings: {
      "a.wait": { type: "duration", default: 1500, min: 1000, help: "how long | at most" },
      "mode": { type: "string", default: "", choices: ["", "on"], help: "mode" },
      "token": { type: "string", secret: true, flag: false, help: "credential" },
      "names": { type: "list", default: [], env: false, help: "names" },
    },
  });
  assert.equal(
    settingsTable({ rows: table.rows, file: true }),
    [
      "| key | flag | environment | type | default | meaning |",
      "| --- | --- | --- | --- | --- | --- |",
      "| `a.wait` | `--a.wait` | `X_A_WAIT` | duration (≥ 1s) | `1.5s` | how long \\| at most |",
      "| `mode` | `--mode` | `X_MODE` |  \\| on | empty | mode |",
      "| `token` (not from the file) | none | `X_TOKEN` | string | none (secret) | credential |",
      "| `names` | `--names` | none | list | empty | names |",
    ].join("\n"),
  );
  assert.throws(() => withTable("no block", { rows: [], file: false }), /Cannot render/);
  assert.equal(unpadded("| a   | b |\n| --- | ----- |\ntext  |"), "|a|b|\n|---|---|\ntext  |");
});
