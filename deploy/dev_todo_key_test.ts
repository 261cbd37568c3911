import assert from "node:assert/strict";
import { type CliResult, provisionTodoKey } from "./dev_todo_key.ts";

/** A stand-in for todo-api's `keys` command with its exact output shapes (cli/keys.ts). */
function fakeCli() {
  const keys = new Map<string, { key: string; revoked: boolean }>();
  const calls: string[] = [];
  let n = 0;
  async function cli(args: string[]): Promise<CliResult> {
    await Promise.resolve();
    calls.push(args.join(" "));
    if (args[1] === "list") {
      const rows = [...keys].map(([id, k]) =>
        [id, "mcp-demo", "user", "2026-01-01T00:00:00Z", k.revoked ? "revoked x" : "active", "ab…"]
          .join("\t")
      );
      return {
        code: 0,
        stdout: ["ID\tSUBJECT\tROLES\tCREATED\tSTATUS\tDIGEST", ...rows].join("\n") + "\n",
        stderr: "",
      };
    }
    const id = `id-${++n}`;
    keys.set(id, { key: `todo_key${n}`, revoked: false });
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

Deno.test("the first run creates a key and stores it 0600; later runs reuse it while active", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/dev/key.json`;
  const { cli, keys, calls } = fakeCli();
  try {
    assert.deepEqual(await provisionTodoKey({ cli, file }), {
      key: "todo_key1",
      id: "id-1",
      created: true,
    });
    assert.deepEqual(calls, ["keys create --subject mcp-demo --role user"]);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    assert.deepEqual(await provisionTodoKey({ cli, file }), {
      key: "todo_key1",
      id: "id-1",
      created: false,
    });
    assert.equal(calls.at(-1), "keys list");
    keys.get("id-1")!.revoked = true; // revoked by hand: a new one
    assert.deepEqual(await provisionTodoKey({ cli, file }), {
      key: "todo_key2",
      id: "id-2",
      created: true,
    });
    keys.clear(); // database deleted: a new one
    assert.deepEqual(await provisionTodoKey({ cli, file }), {
      key: "todo_key3",
      id: "id-3",
      created: true,
    });
    await Deno.writeTextFile(file, "not json"); // damaged file: a new one
    assert.equal((await provisionTodoKey({ cli, file })).id, "id-4");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a failing keys command stops dev with the command's own last line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const failing = (args: string[]) =>
      Promise.resolve({
        code: 1,
        stdout: "",
        stderr: `log\nkeys ${args[1]}: the database is locked\n`,
      });
    await assert.rejects(
      provisionTodoKey({ cli: failing, file: `${dir}/k.json` }),
      { message: "Cannot create a todo-api key: keys create: the database is locked" },
    );
    await Deno.writeTextFile(`${dir}/k.json`, JSON.stringify({ id: "a", key: "b" }));
    await assert.rejects(
      provisionTodoKey({ cli: failing, file: `${dir}/k.json` }),
      { message: "Cannot list todo-api keys: keys list: the database is locked" },
    );
    const silent = () => Promise.resolve({ code: 0, stdout: "", stderr: "" });
    await assert.rejects(
      provisionTodoKey({ cli: silent, file: `${dir}/n.json` }),
      { message: "Cannot create a todo-api key: no key printed" },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
