import assert from "node:assert/strict";
import { predeclaredPaths } from "./mod.ts";

const main = (body: string) => `def main():\n    ${body.split("\n").join("\n    ")}\n`;
const roots = ["todos", "records", "gh"];

Deno.test("predeclaredPaths lists the dotted chains below predeclared roots", () => {
  const cases: [string, string[]][] = [
    ["return todos.create_todo(title='x')", ["todos.create_todo"]],
    ["return [todos.list(), todos.list(), records.get(key='k')]", ["records.get", "todos.list"]],
    ["return (todos).create_todo(title='x')", ["todos.create_todo"]],
    ["return gh.repos.get(owner='o')", ["gh.repos.get"]],
    // a root or namespace taken as a value: the chain as far as it is written
    ["t = todos\nreturn t.create_todo(title='x')", ["todos"]],
    ["return getattr(todos, 'create_' + 'todo')(title='x')", ["todos"]],
    ["f = gh.repos\nreturn f.get(owner='o')", ["gh.repos"]],
    ["return todos.list().items", ["todos.list"]],
    // inside lambdas, comprehensions, nested functions, default values
    ["g = lambda: todos.a()\nreturn [records.b() for _ in range(1)] + [g()]", [
      "records.b",
      "todos.a",
    ]],
    ["def h(x = gh.c):\n    return x\nreturn h()", ["gh.c"]],
    // none named; json and math are universal, not host roots
    ["return json.encode({'a': math.pi})", []],
    ["return 'todos.create_todo'", []],
  ];
  for (const [body, want] of cases) {
    assert.deepEqual(predeclaredPaths(main(body), roots), want, body);
  }
});

Deno.test("a local or global of the program's own is not a root", () => {
  assert.deepEqual(
    predeclaredPaths(main("todos = {'a': 1}\nreturn todos.get('a')"), roots),
    [],
  );
  assert.deepEqual(predeclaredPaths("x = 1\ndef main():\n    return todos.a()\n", roots), [
    "todos.a",
  ]);
});

Deno.test("a program that does not parse or resolve names nothing", () => {
  assert.equal(predeclaredPaths("def main(:\n", roots), undefined);
  assert.equal(predeclaredPaths(main("return nope.a()"), roots), undefined);
  assert.deepEqual(predeclaredPaths(main("return todos.a()"), []), undefined);
});
