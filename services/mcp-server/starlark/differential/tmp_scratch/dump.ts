import { CORPUS } from "/work/wt/starlark/services/mcp-server/starlark/differential/corpus.ts";
import {
  buildGoRunner,
  startGoBatch,
} from "/work/wt/starlark/services/mcp-server/starlark/differential/go_runner.ts";
const b = startGoBatch(await buildGoRunner());
for (const c of CORPUS) {
  const r = await b.run({ src: c.src });
  console.log(
    c.name.padEnd(30),
    r.ok ? "OK  " + (r.repr ?? "").slice(0, 150) : `ERR ${r.errorClass}: ${r.message}`,
  );
}
await b.close();
