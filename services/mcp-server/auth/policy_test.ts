import assert from "node:assert/strict";
import { parsePolicy, policyAuthorizer, PolicyError, PolicyEvaluationError } from "./policy.ts";

const policy = parsePolicy(JSON.stringify({
  rules: [
    { subjects: ["alice"], capabilities: ["records.*", "time.now"] },
    { subjects: ["*"], capabilities: ["todos.list"] },
    {
      subjects: ["bob"],
      capabilities: ["records.put"],
      when: [
        { argument: "key", equals: "$subject" },
        { argument: "meta.size", in: [1, 2, 3] },
      ],
    },
  ],
}));
const allow = policyAuthorizer(policy);
const req = (subject: string, capability: string, args: Record<string, unknown> = {}) =>
  allow({ subject: { id: subject }, capability, arguments: args });

Deno.test("policyAuthorizer denies by default and allows by subject and capability", () => {
  assert.equal(req("alice", "records.get"), true);
  assert.equal(req("alice", "records.deep.leaf"), true);
  assert.equal(req("alice", "time.now"), true);
  assert.equal(req("alice", "time.zone"), false);
  assert.equal(req("alice", "recordsx.get"), false);
  assert.equal(req("carol", "todos.list"), true);
  assert.equal(req("carol", "records.get"), false);
  assert.equal(
    policyAuthorizer({ rules: [] })({ subject: { id: "a" }, capability: "x.y", arguments: {} }),
    false,
  );
});

Deno.test("policyAuthorizer argument conditions on canonical values", () => {
  assert.equal(req("bob", "records.put", { key: "bob", meta: { size: 2 } }), true);
  assert.equal(req("bob", "records.put", { key: "bob", meta: { size: 2n } }), true);
  assert.equal(req("bob", "records.put", { key: "alice", meta: { size: 2 } }), false);
  assert.equal(req("bob", "records.put", { key: "bob", meta: { size: 4 } }), false);
  assert.equal(req("bob", "records.put", { key: "bob" }), false); // absent: condition fails
  assert.throws(
    () => req("bob", "records.put", { key: "bob", meta: { size: [1] } }),
    PolicyEvaluationError,
  );
});

Deno.test("parsePolicy rejects malformed files with a reason", async (t) => {
  const bad: Array<[string, string]> = [
    ["not JSON", "rules: []"],
    ["not an object", "[]"],
    ["unknown top-level key", '{"rules": [], "deny": []}'],
    ["rules not a list", '{"rules": {}}'],
    ["empty subjects", '{"rules": [{"subjects": [], "capabilities": ["a.b"]}]}'],
    ["missing capabilities", '{"rules": [{"subjects": ["a"]}]}'],
    ["unknown rule key", '{"rules": [{"subjects": ["a"], "capabilities": ["a.b"], "x": 1}]}'],
    [
      "condition without operator",
      '{"rules": [{"subjects": ["a"], "capabilities": ["a.b"], "when": [{"argument": "k"}]}]}',
    ],
    [
      "condition with both",
      '{"rules": [{"subjects": ["a"], "capabilities": ["a.b"], "when": [{"argument": "k", "equals": 1, "in": [1]}]}]}',
    ],
    ["scopes not a list", '{"rules": [], "scopes": {}}'],
    ["scope rule without scopes", '{"rules": [], "scopes": [{"capabilities": ["a.b"]}]}'],
    [
      "scope rule with empty scopes",
      '{"rules": [], "scopes": [{"capabilities": ["a"], "scopes": []}]}',
    ],
    [
      "scope rule unknown key",
      '{"rules": [], "scopes": [{"capabilities": ["a"], "scopes": ["s"], "x": 1}]}',
    ],
    ["scope with a space", '{"rules": [], "scopes": [{"capabilities": ["a"], "scopes": ["a b"]}]}'],
    [
      "scope with a quote",
      '{"rules": [], "scopes": [{"capabilities": ["a"], "scopes": ["a\\"b"]}]}',
    ],
    [
      "scope with a backslash",
      '{"rules": [], "scopes": [{"capabilities": ["a"], "scopes": ["a\\\\b"]}]}',
    ],
    [
      "scope with a control",
      '{"rules": [], "scopes": [{"capabilities": ["a"], "scopes": ["a\\u0001"]}]}',
    ],
    ["scope not ASCII", '{"rules": [], "scopes": [{"capabilities": ["a"], "scopes": ["é"]}]}'],
    [
      "in not a list",
      '{"rules": [{"subjects": ["a"], "capabilities": ["a.b"], "when": [{"argument": "k", "in": 1}]}]}',
    ],
  ];
  for (const [what, text] of bad) {
    await t.step(what, () => assert.throws(() => parsePolicy(text), PolicyError));
  }
});

Deno.test("parsePolicy reads scope rules: capability patterns and OAuth scope tokens", () => {
  const parsed = parsePolicy(JSON.stringify({
    rules: [],
    scopes: [{ capabilities: ["todos.*", "records.put"], scopes: ["todos:write", "x!#[]~"] }],
  }));
  assert.deepEqual(parsed.scopes, [
    { capabilities: ["todos.*", "records.put"], scopes: ["todos:write", "x!#[]~"] },
  ]);
  assert.equal(parsePolicy('{"rules": []}').scopes, undefined);
  assert.throws(
    () => parsePolicy('{"rules": [], "scopes": [{"capabilities": ["a"], "scopes": ["a b"]}]}'),
    {
      message:
        "Cannot read policy: scopes[0].scopes must be a list of OAuth scope tokens (RFC 6749 §3.3)",
    },
  );
});
