import assert from "node:assert/strict";
import { SKIPPED_PREFIX, skipSuite } from "./skip_suite.ts";

Deno.test("skipSuite", async (t) => {
  const lines: string[] = [];
  const write = (line: string) => lines.push(line);
  const module = new URL("../tests/x/y_test.ts", import.meta.url).href;

  await t.step("runs the suite, silently, when nothing is missing", () => {
    assert.equal(skipSuite({ module, needs: undefined, write }), false);
    assert.deepEqual(lines, []);
  });

  await t.step("ignores it with one line naming the suite and its need", () => {
    assert.equal(
      skipSuite({ module, needs: "TEST_DATABASE_URL (a Postgres server)", write }),
      true,
    );
    const root = new URL("..", import.meta.url).pathname;
    const shown = Deno.cwd() + "/" === root ? "tests/x/y_test.ts" : new URL(module).pathname;
    assert.deepEqual(lines, [
      `${SKIPPED_PREFIX}${shown}: needs TEST_DATABASE_URL (a Postgres server)`,
    ]);
  });

  await t.step("prints once per module and part, naming the part", () => {
    skipSuite({ module, needs: "TEST_DATABASE_URL (a Postgres server)", write });
    assert.equal(lines.length, 1);
    assert.equal(skipSuite({ module, part: "postgres backend", needs: "Go", write }), true);
    assert.equal(lines.length, 2);
    assert.match(lines[1], /^SKIPPED \S*tests\/x\/y_test\.ts \(postgres backend\): needs Go$/);
  });

  await t.step("a module that is not a file is shown as is", () => {
    skipSuite({ module: "data:x", needs: "Chromium", write });
    assert.equal(lines[2], "SKIPPED data:x: needs Chromium");
  });
});
