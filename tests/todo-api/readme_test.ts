/**
 * End-to-end: the todo-api commands of the root README (run from the repository root, the root
 * `deno task`s) and of `services/todo-api/README.md` (run from `services/todo-api`, its own
 * tasks), as written (`bash`, the tasks' real permissions): migrate → key → serve → create →
 * list, then (root README) complete → walk the pages; and the root README's Postgres set-up block
 * (role, database, migrate, key) against the test server. The README runner (`tests/repo/readme_blocks_test.ts`)
 * leaves these blocks to this test (their marks). Only where the data goes and which port serve
 * takes differ, through the service's own settings (`TODOAPI_DATA_DIR` under `./.data`,
 * `TODOAPI_ADDR`), so the test never touches a real `./.data/todo-api`; the port in the curl lines
 * is rewritten to the one serve picked, and `psql` reaches the test server's superuser through
 * `PG*` variables.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { TEST_DATABASE_URL } from "../../services/todo-api/_test_support.ts";
import { runShipped } from "../_shipped.ts";
import { copyInitdbTemplate } from "./_test_support.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The `sh` blocks of a README's todo-api part (root: its todo-api section), in order. */
async function readmeBlocks(file: string): Promise<string[]> {
  const readme = await Deno.readTextFile(`${ROOT}${file}`);
  const section = file === "README.md"
    ? readme.split(/^### /m).find((s) => s.startsWith("todo-api"))
    : readme;
  assert.ok(section, `${file} has a todo-api section`);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

async function bash(script: string, env: Record<string, string>, cwd = ROOT) {
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * Reads serve's log lines until the API listener's URL shows up, then keeps draining them (a
 * closed pipe would kill serve at its next log line).
 */
async function apiUrl(stream: ReadableStream<Uint8Array>, seen: string[]): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve ended before listening:\n${seen.join("\n")}`);
    buffer += value;
    const parts = buffer.split("\n");
    buffer = parts.pop()!;
    for (const line of parts) {
      seen.push(line);
      const m = /"listener":"api","url":"([^"]+)"/.exec(line);
      if (m) {
        (async () => {
          while (!(await reader.read()).done) { /* drain */ }
        })().catch(() => {});
        return m[1];
      }
    }
  }
}

// The root README's story starts from nothing, as a newcomer does; the service README's, whose
// commands differ only in the directory they run from, from a directory initdb already ran in
// (its `migrate up` still applies every migration): a second initdb costs about 8 s of CPU.
for (
  const [file, dir, fresh] of [
    ["README.md", "", true],
    ["services/todo-api/README.md", "services/todo-api", false],
  ] as const
) {
  Deno.test({
    name: `${file}'s todo-api commands work from ./${dir}: migrate, key, serve, use`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: () => readmeStory(file, `${ROOT}${dir}`, fresh),
  });
}

async function readmeStory(file: string, cwd: string, fresh: boolean) {
  {
    const blocks = await readmeBlocks(file);
    const [setup, serveBlock, use] = blocks;
    assert.ok(setup && serveBlock && use, "three sh blocks: setup, serve, use");
    // The root README goes on: complete a todo, then walk the pages by nextCursor.
    const walk = blocks.find((b) => b.includes("nextCursor"));
    if (file === "README.md") assert.ok(walk, "the root README walks the pages");
    assert.match(setup, /^KEY=\$\(deno task keys create /m);
    const scratch = `./.data/readme-test-${crypto.randomUUID()}`;
    const env = { TODOAPI_DATA_DIR: `${scratch}/todo-api`, TODOAPI_DATABASE_URL: "" };
    try {
      if (!fresh) await copyInitdbTemplate(`${ROOT}${env.TODOAPI_DATA_DIR}`);
      // The setup block's shell keeps KEY; print it afterwards to read it here.
      const done = await bash(`${setup}\nprintf 'KEY=%s\\n' "$KEY"`, env, cwd);
      assert.equal(done.code, 0, done.stderr);
      // Every migration applied by the block's `migrate up`, the seeded directory's too.
      assert.equal(done.stdout.match(/^applied \d+_\w+$/gm)?.length, 4, done.stdout);
      const key = /^KEY=(.*)$/m.exec(done.stdout)?.[1] ?? "";
      assert.match(key, /^todo_\S+$/, "KEY=$(…) captured exactly the key");

      const serveCommand = serveBlock.split("\n")[0].replace(/\s+#.*$/, "");
      const serve = new Deno.Command("bash", {
        args: ["-c", `exec ${serveCommand}`],
        cwd,
        env: { ...env, TODOAPI_ADDR: "127.0.0.1:0", TODOAPI_METRICS_ADDR: "127.0.0.1:0" },
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const log: string[] = [];
      try {
        const url = await apiUrl(serve.stdout, log);
        const port = new URL(url).port;
        const script = use.replaceAll("localhost:8080", `127.0.0.1:${port}`);
        const used = await bash(script, { ...env, KEY: key }, cwd);
        assert.equal(used.code, 0, used.stderr);
        const [created, listed] = used.stdout.trim().split("\n").map((l) => JSON.parse(l));
        assert.equal(used.stdout.trim().split("\n").length, 2, used.stdout);
        assert.equal(created.title, "milk");
        assert.equal(created.status, "open");
        assert.deepEqual(listed.todos.map((t: { id: string }) => t.id), [created.id]);
        if (walk) {
          const walked = await bash(
            walk.replaceAll("localhost:8080", `127.0.0.1:${port}`),
            { ...env, KEY: key },
            cwd,
          );
          assert.equal(walked.code, 0, walked.stderr);
          const [completedLine, ...pages] = walked.stdout.trim().split("\n");
          const completed = JSON.parse(completedLine);
          assert.equal(completed.title, "eggs");
          assert.equal(completed.status, "completed");
          assert.match(completed.completedAt, /^\d{4}-\d{2}-\d{2}T/);
          assert.deepEqual(pages, ['["milk","eggs"]', '["bread","butter"]', '["jam"]']);
        }
      } finally {
        // `deno task` passes SIGTERM on to the deno process it runs: a graceful stop.
        serve.kill("SIGTERM");
        assert.equal((await serve.status).code, 0, log.join("\n"));
      }
      // `deno run … main.ts` from the root, as shipped, sees the same database the tasks wrote.
      const direct = await runShipped("todo-api", { args: ["keys", "list"], env });
      assert.equal(direct.code, 0, direct.stderr);
      const subject = /--subject (\S+)/.exec(setup)?.[1];
      assert.match(direct.stdout, new RegExp(`\\t${subject}\\tuser\\t`));
    } finally {
      await Deno.remove(`${ROOT}${scratch}`, { recursive: true }).catch(() => {});
    }
  }
}

Deno.test({
  name: "the README's Postgres set-up block creates the role and database, migrates, makes a key",
  ignore: !TEST_DATABASE_URL,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const blocks = await readmeBlocks("README.md");
    const block = blocks.find((b) => b.includes("CREATE ROLE todo"));
    assert.ok(block, "a Postgres set-up block");
    const server = new URL(TEST_DATABASE_URL!);
    const admin = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    const clean = async () => {
      await admin.unsafe("drop database if exists todo with (force)");
      await admin.unsafe("drop role if exists todo");
    };
    try {
      await clean();
      // The superuser's connection, as the README says elsewhere than Debian: PG* variables.
      const env = {
        PATH: Deno.env.get("PATH")!,
        HOME: Deno.env.get("HOME") ?? "/tmp",
        PGHOST: server.hostname,
        PGPORT: server.port || "5432",
        PGUSER: decodeURIComponent(server.username),
        PGPASSWORD: decodeURIComponent(server.password),
        PGDATABASE: server.pathname.slice(1) || "postgres",
      };
      const done = await bash(`${block}\nprintf 'KEY=%s\\n' "$KEY"`, env);
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /^KEY=todo_\S+$/m);
      const tables = await admin.unsafe(
        "select count(*)::int as n from pg_database where datname = 'todo'",
      );
      assert.equal(tables[0].n, 1);
      const owned = postgres(
        `postgres://todo:change-me@${server.hostname}:${server.port || 5432}/todo`,
        { max: 1, onnotice: () => {} },
      );
      try {
        const [{ n }] = await owned.unsafe("select count(*)::int as n from api_keys");
        assert.equal(n, 1, "the key is in the new database, owned by the new role");
      } finally {
        await owned.end({ timeout: 5 });
      }
    } finally {
      await clean().catch(() => {});
      await admin.end({ timeout: 5 });
    }
  },
});
