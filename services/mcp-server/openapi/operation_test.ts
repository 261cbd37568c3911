import assert from "node:assert/strict";
import { describeInput, describeOutput, signature } from "../capabilities/notation.ts";
import { bindArguments } from "../capabilities/bind.ts";
import { identifierFor, mapOperation, snakeCase } from "./operation.ts";

type Obj = Record<string, unknown>;

/** A 3.0 (or 3.1) document with one operation `POST /things/{id}` and shared components. */
function doc(op: Obj, schemas: Obj = {}, version = "3.0.3"): Obj {
  return {
    openapi: version,
    info: { title: "t", version: "1" },
    paths: { "/things/{id}": { post: op } },
    components: { schemas },
  };
}

function map(op: Obj, schemas: Obj = {}, version?: string) {
  const d = doc(op, schemas, version);
  return mapOperation(d, "post", "/things/{id}", (d.paths as Obj)["/things/{id}"] as Obj);
}

/** Input rows of an operation whose JSON body has exactly these properties (all required). */
function inputOf(props: Obj, required = Object.keys(props), version?: string) {
  const m = map(
    {
      operationId: "doIt",
      requestBody: {
        required: true,
        content: {
          "application/json": { schema: { type: "object", required, properties: props } },
        },
      },
      responses: { "204": { description: "ok" } },
    },
    {},
    version,
  );
  assert.equal(m.disabled, undefined, m.disabled);
  return describeInput(m.input);
}

/** Output rows of an operation whose 200 JSON response has this schema. */
function outputOf(schema: unknown, schemas: Obj = {}, version?: string) {
  const m = map(
    {
      operationId: "doIt",
      responses: { "200": { description: "ok", content: { "application/json": { schema } } } },
    },
    schemas,
    version,
  );
  assert.equal(m.disabled, undefined, m.disabled);
  return describeOutput(m.output);
}

const row = (name: string, type: string, required = true) => ({ name, type, required });

Deno.test("input notation: string, integers of each width, bool, float32/float64", () => {
  assert.deepEqual(
    inputOf({
      s: { type: "string" },
      dt: { type: "string", format: "date-time" },
      i: { type: "integer" },
      i32: { type: "integer", format: "int32" },
      i64: { type: "integer", format: "int64" },
      b: { type: "boolean" },
      f32: { type: "number", format: "float" },
      f64: { type: "number", format: "double" },
      n: { type: "number" },
    }),
    [
      row("s", "str"),
      row("dt", "str"),
      row("i", "int"),
      row("i32", "int"),
      row("i64", "int"),
      row("b", "bool"),
      row("f32", "float"),
      row("f64", "float"),
      row("n", "float"),
    ],
  );
});

Deno.test("integer formats keep their widths when binding (at, below, above)", () => {
  const m = map({
    operationId: "x",
    parameters: [
      { name: "id", in: "path", required: true, schema: { type: "integer", format: "int32" } },
      { name: "big", in: "query", schema: { type: "integer", format: "int64" } },
      { name: "f", in: "query", schema: { type: "number", format: "float" } },
    ],
    responses: {},
  });
  assert.deepEqual(bindArguments(m.input, { id: 2147483647 }), { id: 2147483647 });
  assert.throws(() => bindArguments(m.input, { id: 2147483648 }), /id: 2147483648 out of range/);
  assert.throws(() => bindArguments(m.input, { id: -2147483649 }), /out of range/);
  assert.deepEqual(bindArguments(m.input, { id: -2147483648 }), { id: -2147483648 });
  const max = (1n << 63n) - 1n;
  assert.deepEqual(bindArguments(m.input, { id: 1, big: max }), { id: 1, big: max });
  assert.deepEqual(bindArguments(m.input, { id: 1, big: -(1n << 63n) }), {
    id: 1,
    big: -(1n << 63n),
  });
  assert.throws(() => bindArguments(m.input, { id: 1, big: max + 1n }), /out of range/);
  assert.deepEqual(bindArguments(m.input, { id: 1, big: 2 ** 53 }), { id: 1, big: 2n ** 53n });
  assert.throws(() => bindArguments(m.input, { id: 1, f: 1e39 }), /float32 range/);
  assert.throws(() => bindArguments(m.input, { id: 1.5 }), /want int/);
});

Deno.test("input notation: list, dict, nested struct, optional and nullable as T | None", () => {
  assert.deepEqual(
    inputOf(
      {
        tags: { type: "array", items: { type: "string" } },
        labels: { type: "object", additionalProperties: { type: "integer" } },
        owner: {
          type: "object",
          required: ["a"],
          properties: { a: { type: "string" }, "b-c": { type: "boolean" } },
        },
        maybe: { type: "string", nullable: true },
        later: { type: "integer" },
      },
      ["tags", "labels", "owner", "maybe"],
    ),
    [
      row("tags", "list[str]"),
      row("labels", "dict[str, int]"),
      row("owner", '{a: str, "b-c": bool | None}'),
      row("maybe", "str | None", false),
      row("later", "int | None", false),
    ],
  );
});

Deno.test("OpenAPI 3.1 type arrays with null are T | None", () => {
  assert.deepEqual(
    inputOf({ a: { type: ["string", "null"] }, b: { type: ["integer"] } }, ["a", "b"], "3.1.0"),
    [row("a", "str | None", false), row("b", "int")],
  );
});

Deno.test("enums are str (or int) with the allowed values in the description", () => {
  const m = map({
    operationId: "x",
    parameters: [{
      name: "state",
      in: "query",
      required: true,
      schema: { type: "string", enum: ["open", "closed"] },
    }],
    responses: {},
  });
  assert.deepEqual(describeInput(m.input), [row("state", "str")]);
  assert.match(m.description, /state: one of "open", "closed"/);
});

Deno.test("output notation: scalars, list, dict, struct with optional?, nullable T | None", () => {
  assert.deepEqual(
    outputOf({
      type: "object",
      required: ["s", "i", "b", "f", "l", "d", "st", "n"],
      properties: {
        s: { type: "string" },
        i: { type: "integer", format: "int32" },
        b: { type: "boolean" },
        f: { type: "number" },
        l: { type: "array", items: { type: "integer" } },
        d: { type: "object", additionalProperties: { type: "string" } },
        st: {
          type: "object",
          required: ["x"],
          properties: { x: { type: "string" }, y: { type: "string" } },
        },
        n: { type: "string", nullable: true },
        opt: { type: "integer" },
      },
    }),
    [
      row("s", "str"),
      row("i", "int"),
      row("b", "bool"),
      row("f", "float"),
      row("l", "list[int]"),
      row("d", "dict[str, str]"),
      row("st", "{x: str, y?: str}"),
      row("n", "str | None"),
      row("opt", "int", false),
    ],
  );
});

Deno.test("a non-object response is wrapped as the output field body", () => {
  assert.deepEqual(
    outputOf({ type: "array", items: { $ref: "#/components/schemas/T" } }, {
      T: { type: "object", required: ["id"], properties: { id: { type: "integer" } } },
    }),
    [row("body", "list[{id: int}]")],
  );
});

Deno.test("$ref and allOf are resolved; recursive $refs disable the operation", () => {
  assert.deepEqual(
    outputOf({
      allOf: [
        { $ref: "#/components/schemas/Base" },
        { type: "object", required: ["b"], properties: { b: { type: "string" } } },
      ],
    }, { Base: { type: "object", required: ["a"], properties: { a: { type: "string" } } } }),
    [row("a", "str"), row("b", "str")],
  );
  const node = {
    type: "object",
    required: ["children"],
    properties: { children: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
  };
  const m = map({
    operationId: "tree",
    requestBody: {
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } },
    },
    responses: {},
  }, { Node: node });
  assert.match(m.disabled ?? "", /recursive schema \(#\/components\/schemas\/Node\)/);
  // an optional recursive output field is left out, not fatal
  const out = outputOf({ $ref: "#/components/schemas/N" }, {
    N: {
      type: "object",
      required: ["v"],
      properties: { v: { type: "string" }, next: { $ref: "#/components/schemas/N" } },
    },
  });
  assert.deepEqual(out, [row("v", "str")]);
});

Deno.test("oneOf: without a discriminator disabled; with one a struct; [T, null] is T | None", () => {
  const schemas = {
    Cat: {
      type: "object",
      required: ["kind"],
      properties: { kind: { type: "string", enum: ["cat"] }, purrs: { type: "boolean" } },
    },
    Dog: {
      type: "object",
      required: ["kind"],
      properties: { kind: { type: "string", enum: ["dog"] }, barks: { type: "boolean" } },
    },
  };
  const refs = [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }];
  const none = map({
    operationId: "pet",
    responses: {
      "200": {
        description: "",
        content: { "application/json": { schema: { oneOf: refs } } },
      },
    },
  }, schemas);
  assert.equal(none.disabled, "output: oneOf without a discriminator");
  assert.deepEqual(
    outputOf({ oneOf: refs, discriminator: { propertyName: "kind" } }, schemas),
    [row("kind", "str"), row("purrs", "bool", false), row("barks", "bool", false)],
  );
  assert.deepEqual(
    outputOf(
      {
        type: "object",
        required: ["x"],
        properties: { x: { oneOf: [{ type: "string" }, { type: "null" }] } },
      },
      {},
      "3.1.0",
    ),
    [row("x", "str | None")],
  );
});

Deno.test("free-form required inputs and non-JSON bodies disable; optional ones are left out", () => {
  const form = map({
    operationId: "form",
    requestBody: {
      required: true,
      content: { "application/x-www-form-urlencoded": { schema: { type: "object" } } },
    },
    responses: {},
  });
  assert.equal(form.disabled, "request body is not JSON (application/x-www-form-urlencoded)");
  const html = map({
    operationId: "page",
    responses: { "200": { description: "", content: { "text/html": {} } } },
  });
  assert.equal(html.disabled, "response 200 is not JSON (text/html)");
  const m = map({
    operationId: "mint",
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["issuer"],
            properties: {
              issuer: { type: "string" },
              claims: { type: "object", additionalProperties: true },
            },
          },
        },
      },
    },
    responses: {},
  });
  assert.deepEqual(describeInput(m.input), [row("issuer", "str")]);
  assert.match(m.description, /claims not exposed \(free-form object\)/);
  const need = map({
    operationId: "mint",
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["claims"],
            properties: { claims: { type: "object" } },
          },
        },
      },
    },
    responses: {},
  });
  assert.equal(need.disabled, "input.claims: free-form object");
});

Deno.test("names: operationId in snake_case, else method and path; Starlark-safe roots", () => {
  assert.equal(snakeCase("list-todos"), "list_todos");
  assert.equal(snakeCase("mintToken"), "mint_token");
  assert.equal(snakeCase("repos/list-for-org"), "repos_list_for_org");
  assert.equal(snakeCase("getHTTPServer"), "get_http_server");
  assert.equal(snakeCase("2fa"), "op_2fa");
  assert.equal(snakeCase("pass"), "pass_");
  assert.equal(snakeCase("get /v1/todos/{id}"), "get_v1_todos_id");
  assert.equal(identifierFor("X-Forwarded-Host"), "x_forwarded_host");
  assert.equal(identifierFor("issuerUrl"), "issuerUrl");
  assert.equal(identifierFor("def"), "def_");
  const d = doc({ responses: {} });
  assert.equal(
    mapOperation(d, "post", "/things/{id}", (d.paths as Obj)["/things/{id}"] as Obj).local,
    "post_things_id",
  );
});

Deno.test("root-name collisions: path, query, header, body in that order; later ones suffixed", () => {
  const m = map({
    operationId: "x",
    parameters: [
      { name: "id", in: "query", schema: { type: "string" } },
      { name: "id", in: "path", required: true, schema: { type: "string" } },
      { name: "id", in: "header", schema: { type: "string" } },
      { name: "page-size", in: "query", schema: { type: "integer" } },
      { name: "page_size", in: "header", schema: { type: "integer" } },
      { name: "Authorization", in: "header", schema: { type: "string" } },
      { name: "sid", in: "cookie", schema: { type: "string" } },
    ],
    requestBody: {
      content: {
        "application/json": {
          schema: {
            type: "object",
            properties: { id: { type: "string" }, "for": { type: "string" } },
          },
        },
      },
    },
    responses: {},
  });
  assert.deepEqual(describeInput(m.input).map((r) => r.name), [
    "id",
    "id_query",
    "page_size",
    "id_header",
    "page_size_header",
    "id_body",
    "for_",
  ]);
  assert.equal(
    signature("api.x", m.input),
    "api.x(*, id: str, id_query: str | None, page_size: int | None, id_header: str | None, " +
      "page_size_header: int | None, id_body: str | None, for_: str | None)",
  );
  assert.deepEqual(m.plan.inputs.map((i) => `${i.in}:${i.wire}`), [
    "path:id",
    "query:id",
    "query:page-size",
    "header:id",
    "header:page_size",
    "body:id",
    "body:for",
  ]);
  const cookie = map({
    operationId: "c",
    parameters: [{ name: "sid", in: "cookie", required: true, schema: { type: "string" } }],
    responses: {},
  });
  assert.equal(cookie.disabled, "input.sid: cookie parameters are not supported");
});

Deno.test("summary, description and tags become summary, description and search terms", () => {
  const m = map({
    operationId: "createThing",
    summary: "Create a thing",
    description: "Makes one.",
    tags: ["things", "making"],
    responses: {},
  });
  assert.equal(m.summary, "Create a thing");
  assert.equal(m.description, "Makes one.\n\nHTTP: POST /things/{id}");
  assert.deepEqual(m.searchTerms, ["things", "making", "createThing", "post", "things"]);
  const bare = map({ description: "First sentence. Second.", responses: {} });
  assert.equal(bare.summary, "First sentence.");
});
