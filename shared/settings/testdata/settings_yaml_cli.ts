// Resolves a tiny table from a YAML file named by --config; used to check the permission set
// a service needs to read YAML (see yaml_file_test's subprocess step).
import { defineSettings } from "../mod.ts";

const table = defineSettings({
  prefix: "DEMO",
  configFile: { flag: "config", env: false },
  settings: { "proxy.max_streams": { type: "int", default: 1, help: "streams" } },
});
const { values } = await table.load({ args: Deno.args });
Deno.stdout.writeSync(new TextEncoder().encode(`${values["proxy.max_streams"]}\n`));
