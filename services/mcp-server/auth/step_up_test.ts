import assert from "node:assert/strict";
import { grantedScopes, missingScopes, stepUpOf } from "./step_up.ts";
import { programScopes } from "./program_scopes.ts";

const stepUp = stepUpOf([
  { capabilities: ["todos.*"], scopes: ["todos:read"] },
  { capabilities: ["todos.create_todo", "todos.admin.*"], scopes: ["todos:write"] },
  { capabilities: ["*"], scopes: ["mcp"] },
])!;
const capabilities = [
  "todos.list_todos",
  "todos.create_todo",
  "todos.admin.purge",
  "records.get",
  "time.now",
];
const main = (body: string) => `def main():\n    ${body.split("\n").join("\n    ")}\n`;

Deno.test("stepUpOf: the scopes each capability requires, and all of them", () => {
  assert.equal(stepUpOf(undefined), undefined);
  assert.equal(stepUpOf([]), undefined);
  assert.deepEqual(stepUp.all, ["mcp", "todos:read", "todos:write"]);
  assert.deepEqual(stepUp.scopesOf("todos.create_todo"), ["mcp", "todos:read", "todos:write"]);
  assert.deepEqual(stepUp.scopesOf("todos.list_todos"), ["mcp", "todos:read"]);
  assert.deepEqual(stepUp.scopesOf("records.get"), ["mcp"]);
  const narrow = stepUpOf([{ capabilities: ["todos.create_todo"], scopes: ["w"] }])!;
  assert.deepEqual(narrow.scopesOf("todos.create_todo"), ["w"]);
  assert.deepEqual(narrow.scopesOf("todos.create_todo_2"), []);
  assert.deepEqual(narrow.scopesOf("todos"), []);
});

Deno.test("programScopes: the scopes of every capability a program names", () => {
  const narrow = stepUpOf([
    { capabilities: ["todos.create_todo"], scopes: ["todos:write"] },
    { capabilities: ["todos.admin.*"], scopes: ["admin"] },
  ])!;
  const cases: [string, string[]][] = [
    ["return todos.list_todos()", []],
    ["return todos.create_todo(title='x')", ["todos:write"]],
    ["return [todos.create_todo(title='x'), todos.admin.purge()]", ["admin", "todos:write"]],
    // taken as a value: everything below it
    ["t = todos\nreturn t.list_todos()", ["admin", "todos:write"]],
    ["return getattr(todos, 'list_todos')()", ["admin", "todos:write"]],
    ["a = todos.admin\nreturn a.purge()", ["admin"]],
    // a chain past the capability still names it
    ["return todos.create_todo.x", ["todos:write"]],
    ["return records.get(key='k')", []],
    // not a capability root, or shadowed
    ["todos = {}\nreturn todos.get('create_todo')", []],
    ["return 'todos.create_todo'", []],
    // does not parse or resolve: it cannot run, so needs nothing
    ["return todos.create_todo(", []],
    ["return nope.create_todo()", []],
  ];
  for (const [body, want] of cases) {
    assert.deepEqual(programScopes(narrow, main(body), capabilities), want, body);
  }
});

Deno.test("missingScopes and grantedScopes", () => {
  assert.deepEqual(missingScopes(["a", "b"], ["b", "c"]), ["a"]);
  assert.deepEqual(missingScopes([], []), []);
  assert.deepEqual(missingScopes(["a"], ["a"]), []);
  assert.deepEqual(grantedScopes({ id: "x" }), []);
  assert.deepEqual(grantedScopes({ id: "x", scopes: ["a", "b"] }), ["a", "b"]);
  assert.deepEqual(grantedScopes({ id: "x", scopes: "a" as unknown as string[] }), []);
});
