/**
 * End-to-end: the root README's todo-api commands, run as written from the repository root
 * (`bash`, the root `deno task`s with their real permissions): migrate → key → serve → create →
 * list → complete → walk the pages; and the Postgres set-up block (role, database, migrate, key)
 * against the test server. Only where the data goes and which port serve takes differ, through
 * the service's own settings (`TODOAPI_DATA_DIR` under `./.data`, `TODOAPI_ADDR`), so the test
 * never touches a real `./.data/todo-api`; the port in the curl lines is rewritten to the one
 * serve picked, and `psql` reaches the test server's superuser through `PG*` variables.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { TEST_DATABASE_URL } from "../../services/todo-api/_test_support.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The `sh` blocks of the README's todo-api section, in order. */
async function readmeBlocks(): Promise<string[]> {
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  const section = readme.split(/^### /m).find((s) => s.startsWith("todo-api"));
  assert.ok(section, "the README has a todo-api section");
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

async function bash(script: string, env: Record<string, string>) {
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    cwd: ROOT,
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

Deno.test({
  name: "the README's todo-api commands work from the repository root: migrate, key, serve, use",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const [setup, serveBlock, use, walk] = await readmeBlocks();
    assert.ok(setup && serveBlock && use && walk, "sh blocks: setup, serve, use, walk");
    assert.match(setup, /^KEY=\$\(deno task keys create /m);
    const scratch = `./.data/readme-test-${crypto.randomUUID()}`;
    const env = { TODOAPI_DATA_DIR: `${scratch}/todo-api`, TODOAPI_DATABASE_URL: "" };
    try {
      // The setup block's shell keeps KEY; print it afterwards to read it here.
      const done = await bash(`${setup}\nprintf 'KEY=%s\\n' "$KEY"`, env);
      assert.equal(done.code, 0, done.stderr);
      const key = /^KEY=(.*)$/m.exec(done.stdout)?.[1] ?? "";
      assert.match(key, /^todo_\S+$/, "KEY=$(…) captured exactly the key");

      const serveCommand = serveBlock.split("\n")[0].replace(/\s+#.*$/, "");
      const serve = new Deno.Command("bash", {
        args: ["-c", `exec ${serveCommand}`],
        cwd: ROOT,
        env: { ...env, TODOAPI_ADDR: "127.0.0.1:0", TODOAPI_METRICS_ADDR: "127.0.0.1:0" },
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const log: string[] = [];
      try {
        const url = await apiUrl(serve.stdout, log);
        const port = new URL(url).port;
        const script = use.replaceAll("localhost:8080", `127.0.0.1:${port}`);
        const used = await bash(script, { ...env, KEY: key, PATH: Deno.env.get("PATH")! });
        assert.equal(used.code, 0, used.stderr);
        const [created, listed] = used.stdout.trim().split("\n").map((l) => JSON.parse(l));
        assert.equal(used.stdout.trim().split("\n").length, 2, used.stdout);
        assert.equal(created.title, "milk");
        assert.equal(created.status, "open");
        assert.deepEqual(listed.todos.map((t: { id: string }) => t.id), [created.id]);

        const walked = await bash(walk.replaceAll("localhost:8080", `127.0.0.1:${port}`), {
          ...env,
          KEY: key,
          PATH: Deno.env.get("PATH")!,
        });
        assert.equal(walked.code, 0, walked.stderr);
        const [completedLine, ...pages] = walked.stdout.trim().split("\n");
        const completed = JSON.parse(completedLine);
        assert.equal(completed.title, "eggs");
        assert.equal(completed.status, "completed");
        assert.match(completed.completedAt, /^\d{4}-\d{2}-\d{2}T/);
        assert.deepEqual(pages, ['["milk","eggs"]', '["bread","butter"]', '["jam"]']);
      } finally {
        // `deno task` passes SIGTERM on to the deno process it runs: a graceful stop.
        serve.kill("SIGTERM");
        assert.equal((await serve.status).code, 0, log.join("\n"));
      }
      // `deno run … main.ts` from the root sees the same database the tasks wrote.
      const direct = await bash(
        "deno run -A services/todo-api/main.ts keys list",
        env,
      );
      assert.equal(direct.code, 0, direct.stderr);
      assert.match(direct.stdout, /\tme\tuser\t/);
    } finally {
      await Deno.remove(`${ROOT}${scratch}`, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "the README's Postgres set-up block creates the role and database, migrates, makes a key",
  ignore: !TEST_DATABASE_URL,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const blocks = await readmeBlocks();
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
