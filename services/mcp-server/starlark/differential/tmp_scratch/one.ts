import { buildGoRunner, startGoBatch } from "../go_runner.ts";
import { parseFile } from "../../syntax/parser.ts";
const b = startGoBatch(await buildGoRunner());
for (const src of [
  "def main():\n    a **= 1\n",
  "def main():\n    x *=\n    return 1\n",
  'def main():\n    x = (a i)s" else "s")\n',
  "def main():\n    x = (1 if 2)\n    y = )\n",
  "def main():\n    return [1 for x in y z]\n    x = '\n",
]) {
  const r = await b.run({ src, maxSteps: 1 });
  let ours = "no error";
  try { parseFile(src, "<program>"); } catch (e) { ours = (e as Error).message; }
  console.log(JSON.stringify(src), "\n  go:  ", r.message, "\n  ours:", ours);
}
await b.close();
