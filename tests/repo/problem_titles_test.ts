import assert from "node:assert/strict";
import { STATUS_TEXT } from "../../shared/http/status_text.ts";

/**
 * Reason phrases RFC 9110 renamed, with the name it gives them. A problem title comes from
 * {@linkcode STATUS_TEXT} (the default of every `HttpError`), so one status has one title in
 * every service; these older spellings (Go's `http.StatusText` still says "Unprocessable
 * Entity") must not come back as a hand-written title, a schema example or a test's expectation.
 */
const SUPERSEDED: Record<string, number> = {
  "Unprocessable Entity": 422,
  "Payload Too Large": 413,
  "Request Entity Too Large": 413,
  "Request-URI Too Long": 414,
  "Requested Range Not Satisfiable": 416,
  "Request Time-out": 408,
};

const ROOT = new URL("../../", import.meta.url);
const SKIP = new Set(["node_modules", ".data", "dist", "cov", ".git", "bench"]);
const THIS_FILE = new URL(import.meta.url).pathname;

async function* sources(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    if (SKIP.has(entry.name)) continue;
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sources(url);
    else if (/\.(ts|md|json|yaml)$/.test(entry.name) && url.pathname !== THIS_FILE) yield url;
  }
}

Deno.test("STATUS_TEXT holds RFC 9110's names where older RFCs spelled them differently", () => {
  for (const [old, status] of Object.entries(SUPERSEDED)) {
    assert.ok(STATUS_TEXT[status], `${status} has a title`);
    assert.notEqual(STATUS_TEXT[status], old);
  }
  assert.equal(STATUS_TEXT[422], "Unprocessable Content");
  assert.equal(STATUS_TEXT[413], "Content Too Large");
  assert.equal(STATUS_TEXT[416], "Range Not Satisfiable");
});

Deno.test("no service, doc or test spells a problem title the superseded way", async () => {
  const found: string[] = [];
  let files = 0;
  for (
    const top of ["services/", "shared/", "testing/", "starlark/", "deploy/", "docs/", "tests/"]
  ) {
    for await (const url of sources(new URL(top, ROOT))) {
      files++;
      const text = await Deno.readTextFile(url);
      for (const old of Object.keys(SUPERSEDED)) {
        if (text.includes(old)) {
          const rel = url.pathname.slice(ROOT.pathname.length);
          found.push(`${rel}: "${old}" (RFC 9110: "${STATUS_TEXT[SUPERSEDED[old]]}")`);
        }
      }
    }
  }
  assert.ok(files > 100, `scanned ${files} files`);
  assert.deepEqual(found, []);
});
