import assert from "node:assert/strict";
import { responseSchema, schemaViolations } from "./schema_check.ts";

const DOC = {
  openapi: "3.0.3",
  paths: {
    "/todos/{id}": {
      get: {
        responses: {
          "200": {
            content: { "application/json": { schema: { $ref: "#/components/schemas/Todo" } } },
          },
          "404": { $ref: "#/components/responses/NotFound" },
        },
      },
    },
  },
  components: {
    responses: {
      NotFound: {
        description: "not found",
        content: { "application/problem+json": { schema: { type: "object" } } },
      },
    },
    schemas: {
      Todo: {
        type: "object",
        additionalProperties: false,
        required: ["id", "title"],
        properties: {
          id: { type: "string", format: "uuid" },
          title: { type: "string", minLength: 1, maxLength: 3, example: "abc" },
          done: { type: "string", format: "date-time", nullable: true },
          link: { type: "string", format: "uri" },
          at: { type: "string", format: "uri-reference" },
          tags: { type: "array", items: { $ref: "#/components/schemas/Tag" } },
          count: { type: "integer" },
        },
      },
      Tag: { type: "string", enum: ["a", "b"] },
    },
  },
};
const TODO = { $ref: "#/components/schemas/Todo" };
const ID = "0b6f4e0a-3c1d-4a57-9b5e-1f2d3c4b5a69";

Deno.test("schemaViolations accepts a value that matches, following $refs", () => {
  const value = {
    id: ID,
    title: "abc",
    done: null,
    tags: ["a"],
    count: 2,
    link: "https://x/",
    at: "/todos/1",
  };
  assert.deepEqual(schemaViolations(value, TODO, DOC), []);
  assert.deepEqual(schemaViolations({ id: ID, title: "😀😀😀" }, TODO, DOC), [], "code points");
});

Deno.test("schemaViolations names each violation by its path", async (t) => {
  const cases: [string, unknown, string][] = [
    ["missing property", { id: ID }, "$: must have required property 'title'"],
    ["extra property", { id: ID, title: "a", x: 1 }, "$: must NOT have additional properties"],
    ["too short", { id: ID, title: "" }, "$.title: must NOT have fewer than 1 characters"],
    ["too long", { id: ID, title: "abcd" }, "$.title: must NOT have more than 3 characters"],
    ["null not nullable", { id: ID, title: null }, "$.title: must be string"],
    ["bad uuid", { id: "x", title: "a" }, '$.id: must match format "uuid"'],
    ["bad date", { id: ID, title: "a", done: "soon" }, '$.done: must match format "date-time"'],
    ["bad uri", { id: ID, title: "a", link: "/relative" }, '$.link: must match format "uri"'],
    [
      "bad reference",
      { id: ID, title: "a", at: "http://[" },
      '$.at: must match format "uri-reference"',
    ],
    [
      "bad enum",
      { id: ID, title: "a", tags: ["c"] },
      "$.tags.0: must be equal to one of the allowed values",
    ],
    ["not integer", { id: ID, title: "a", count: 1.5 }, "$.count: must be integer"],
  ];
  for (const [name, value, violation] of cases) {
    await t.step(name, () => assert.deepEqual(schemaViolations(value, TODO, DOC), [violation]));
  }
});

Deno.test("responseSchema finds the documented media type, through a response $ref", () => {
  assert.deepEqual(responseSchema(DOC, "/todos/{id}", "get", 200), {
    mediaType: "application/json",
    schema: TODO,
  });
  assert.deepEqual(responseSchema(DOC, "/todos/{id}", "GET", 404), {
    mediaType: "application/problem+json",
    schema: { type: "object" },
  });
  assert.equal(responseSchema(DOC, "/todos/{id}", "GET", 500), undefined);
  assert.equal(responseSchema(DOC, "/nope", "GET", 200), undefined);
});
