import assert from "node:assert/strict";
import { type CliResult, type KeySpec, provisionTodoKeys } from "./todo_key.ts";

async function digestPrefix(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")
    .slice(0, 12);
}

/** A stand-in for todo-api's `keys` command with its exact output shapes (services/todo-api/commands/keys.ts). */
function fakeCli() {
  const keys = new Map<string, { key: string; subject: string; roles: string; revoked: boolean }>();
  const calls: string[] = [];
  let n = 0;
  async function cli(args: string[]): Promise<CliResult> {
    calls.push(args.join(" "));
    if (args[1] === "list") {
      const rows = await Promise.all(
        [...keys].map(async ([id, k]) =>
          [
            id,
            k.subject,
            k.roles,
            "2026-01-01T00:00:00Z",
            k.revoked ? "revoked 2026-01-02T00:00:00Z" : "active",
            `${await digestPrefix(k.key)}…`,
          ].join("\t")
        ),
      );
      return {
        code: 0,
        stdout: ["ID\tSUBJECT\tROLES\tCREATED\tSTATUS\tDIGEST", ...rows].join("\n") + "\n",
        stderr: "",
      };
    }
    const id = `id-${++n}`;
    keys.set(id, { key: `todo_key${n}`, subject: args[3], roles: args[5], revoked: false });
    return {
      code: 0,
      stdout: `todo_key${n}\n`,
      stderr: `created key ${id} for ${args[3]} (${
        args[5]
      }); it is shown only now: store it safely\n`,
    };
  }
  return { cli, keys, calls };
}

Deno.test("the first run creates each key and stores it alone, 0600; later runs reuse it while active", async () => {
  const dir = await Deno.makeTempDir();
  const mcp: KeySpec = { file: `${dir}/dev/mcp.key`, subject: "mcp-demo", roles: ["user"] };
  const admin: KeySpec = { file: `${dir}/dev/admin.key`, subject: "dev-admin", roles: ["admin"] };
  const { cli, keys, calls } = fakeCli();
  try {
    assert.deepEqual(await provisionTodoKeys({ cli, keys: [mcp, admin] }), [
      { key: "todo_key1", id: "id-1", created: true },
      { key: "todo_key2", id: "id-2", created: true },
    ]);
    // No file yet: nothing to list.
    assert.deepEqual(calls, [
      "keys create --subject mcp-demo --role user",
      "keys create --subject dev-admin --role admin",
    ]);
    for (const [spec, key] of [[mcp, "todo_key1"], [admin, "todo_key2"]] as const) {
      assert.equal((await Deno.stat(spec.file)).mode! & 0o777, 0o600);
      // The file is the key alone: `$(cat file)` is the key.
      assert.equal(await Deno.readTextFile(spec.file), `${key}\n`);
    }
    calls.length = 0;
    assert.deepEqual(await provisionTodoKeys({ cli, keys: [mcp, admin] }), [
      { key: "todo_key1", id: "id-1", created: false },
      { key: "todo_key2", id: "id-2", created: false },
    ]);
    assert.deepEqual(calls, ["keys list"]); // one list for both
    keys.get("id-1")!.revoked = true; // revoked by hand: a new one, the other kept
    assert.deepEqual(await provisionTodoKeys({ cli, keys: [mcp, admin] }), [
      { key: "todo_key3", id: "id-3", created: true },
      { key: "todo_key2", id: "id-2", created: false },
    ]);
    keys.clear(); // database deleted: new ones
    assert.deepEqual(
      (await provisionTodoKeys({ cli, keys: [mcp, admin] })).map((k) => [k.id, k.created]),
      [["id-4", true], ["id-5", true]],
    );
    await Deno.writeTextFile(admin.file, "not a key\n"); // damaged file: a new one
    assert.deepEqual(
      (await provisionTodoKeys({ cli, keys: [mcp, admin] })).map((k) => [k.id, k.created]),
      [["id-4", false], ["id-6", true]],
    );
    // A key of another database (or edited by hand) is not in the list: a new one.
    await Deno.writeTextFile(mcp.file, "todo_elsewhere\n");
    assert.equal((await provisionTodoKeys({ cli, keys: [mcp] }))[0].id, "id-7");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a failing keys command stops dev with the command's own last line", async () => {
  const dir = await Deno.makeTempDir();
  const spec = (file: string): KeySpec => ({ file, subject: "s", roles: ["user"] });
  try {
    const failing = (args: string[]) =>
      Promise.resolve({
        code: 1,
        stdout: "",
        stderr: `log\nkeys ${args[1]}: the database is locked\n`,
      });
    await assert.rejects(
      provisionTodoKeys({ cli: failing, keys: [spec(`${dir}/k.key`)] }),
      { message: "Cannot create a todo-api key: keys create: the database is locked" },
    );
    await Deno.writeTextFile(`${dir}/k.key`, "todo_b\n");
    await assert.rejects(
      provisionTodoKeys({ cli: failing, keys: [spec(`${dir}/k.key`)] }),
      { message: "Cannot list todo-api keys: keys list: the database is locked" },
    );
    const silent = () => Promise.resolve({ code: 0, stdout: "", stderr: "" });
    await assert.rejects(
      provisionTodoKeys({ cli: silent, keys: [spec(`${dir}/n.key`)] }),
      { message: "Cannot create a todo-api key: no key printed" },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
