/**
 * Strict decoding of a YAML configuration file into raw values per settings key. Nested maps
 * and dotted keys address the same setting (`proxy: {shutdown_grace: 5s}` is
 * `proxy.shutdown_grace: 5s`). Rejected, each error naming the key and never the value: unknown
 * keys, duplicate keys (also across the two spellings), keys the file may not set (secrets),
 * maps where a value belongs and values where a map belongs, aliases, merge keys (`<<`), tags
 * the core schema does not know, and more than one document.
 *
 * @module
 */
import type { Node, Scalar, YAMLMap } from "yaml";
import { withoutProcessEnv } from "../codec/yaml.ts";
import { SettingsError } from "./error.ts";
import type { SettingRow } from "./convert.ts";

// The package by URL, so that `deno run` does not resolve it at every start
// (../lifecycle/on_demand.ts).
const { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments }: typeof import("yaml") =
  await import(import.meta.resolve("yaml"));

/** What {@linkcode decodeSettingsFile} needs to know about the table. */
export interface FileSchema {
  /** Rows by key. */
  rows: ReadonlyMap<string, SettingRow>;
  /** Every proper prefix of a key (`proxy` for `proxy.shutdown_grace`). */
  sections: ReadonlySet<string>;
  /** Name of the setting that points at the file (for errors without a key). */
  fileKey: string;
}

/**
 * Decodes configuration-file text into raw values per key (types are checked later, per row).
 *
 * @throws {SettingsError} naming the key (or the file and line, for YAML syntax errors).
 */
export function decodeSettingsFile(
  text: string,
  path: string,
  schema: FileSchema,
): Map<string, unknown> {
  const lines = new LineCounter();
  const docs = withoutProcessEnv(() =>
    parseAllDocuments(text, {
      lineCounter: lines,
      prettyErrors: false,
      uniqueKeys: false, // detected below, so the error can name the key
      merge: false,
    })
  );
  const fileError = (why: string) =>
    new SettingsError(schema.fileKey, `Cannot read configuration file ${path}: ${why}`);
  if (!Array.isArray(docs) || docs.length === 0) return new Map();
  if (docs.length > 1) throw fileError("multiple YAML documents are not allowed");
  const doc = docs[0];
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) {
    // The parser's own message quotes the source line, which may hold a secret: keep its code.
    const at = problem.linePos?.[0] ?? lines.linePos(problem.pos[0]);
    throw fileError(`invalid YAML at line ${at.line}, column ${at.col} (${problem.code})`);
  }
  const out = new Map<string, unknown>();
  const root = doc.contents;
  if (root === null || (isScalar(root) && root.value === null)) return out;
  if (!isMap(root)) throw fileError("expected a map of settings at the top level");
  walk(root, "", { schema, out, path });
  return out;
}

interface Walk {
  schema: FileSchema;
  out: Map<string, unknown>;
  path: string;
}

function walk(map: YAMLMap, section: string, w: Walk): void {
  const seen = new Set<string>();
  const fail = (key: string, why: string) =>
    new SettingsError(key, `Cannot read configuration file ${w.path}: key "${key}" ${why}`);
  for (const pair of map.items) {
    const keyNode = pair.key as Node | null;
    const where = section || "(top level)";
    if (isAlias(keyNode)) throw fail(where, "holds an alias (*) as a key; aliases are not allowed");
    if (!isScalar(keyNode) || typeof keyNode.value !== "string" || keyNode.value === "") {
      throw fail(where, "holds a key that is not a non-empty string");
    }
    const name = keyNode.value;
    const key = section ? `${section}.${name}` : name;
    if (name === "<<") throw fail(where, "holds a merge key (<<); merge keys are not allowed");
    if (seen.has(name)) throw fail(key, "appears more than once");
    seen.add(name);
    const value = pair.value as Node | null;
    const row = w.schema.rows.get(key);
    if (row) {
      if (w.out.has(key)) throw fail(key, "appears more than once (nested and dotted)");
      if (!row.file) {
        throw fail(
          key,
          row.spec.secret
            ? "is a secret and cannot be set in the file; use its flag or environment variable"
            : "cannot be set in the file",
        );
      }
      w.out.set(key, plain(value, key, fail));
    } else if (w.schema.sections.has(key)) {
      if (isAlias(value)) throw fail(key, "is an alias (*); aliases are not allowed");
      if (value === null || (isScalar(value) && value.value === null)) continue;
      if (!isMap(value)) throw fail(key, "must be a map of settings");
      walk(value, key, w);
    } else {
      throw fail(key, "is not a known setting");
    }
  }
}

const CORE_TAGS = new Set(
  ["str", "int", "float", "bool", "null", "seq", "map"].map((t) => `tag:yaml.org,2002:${t}`),
);

/** Only the core schema's own tags (`!!str`, `!!int`, …) may be written out. */
function checkTag(
  node: Node,
  key: string,
  fail: (key: string, why: string) => SettingsError,
): void {
  if (node.tag !== undefined && !CORE_TAGS.has(node.tag)) {
    throw fail(key, "has a tag outside the YAML core schema");
  }
}

/**
 * A scalar's value; a decimal integer beyond 2^53 as an exact `bigint` from its source text (the
 * parser's number has already lost digits), so int64 settings read what was written.
 */
function exact(node: Scalar): unknown {
  const { value, source } = node as Scalar & { source?: string };
  if (
    typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value) &&
    typeof source === "string" && /^[-+]?\d+$/.test(source)
  ) {
    return BigInt(source);
  }
  return value;
}

/** The plain value of a leaf: a scalar, or a sequence of scalars (aliases rejected). */
function plain(
  node: Node | null,
  key: string,
  fail: (key: string, why: string) => SettingsError,
): unknown {
  if (node === null) return null;
  if (isAlias(node)) throw fail(key, "is an alias (*); aliases are not allowed");
  checkTag(node, key, fail);
  if (isScalar(node)) return exact(node);
  if (isSeq(node)) {
    return node.items.map((item) => {
      if (isAlias(item)) throw fail(key, "holds an alias (*); aliases are not allowed");
      checkTag(item as Node, key, fail);
      return isScalar(item) ? item.value : isSeq(item) ? [] : {};
    });
  }
  return {}; // a map: the row's conversion reports it as the wrong type
}
