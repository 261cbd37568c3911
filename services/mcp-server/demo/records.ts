/**
 * Demo capabilities `records.put`, `records.get`, `records.delete`, `records.list`: an in-memory
 * key/value store with string values and labels, shared by every caller of the process.
 * @module
 */
import type { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { AgentError } from "../tools/agent_error.ts";

/** Options of {@linkcode registerRecords}. */
export interface RecordsOptions {
  /** Most records kept. @default 10000 */
  maxRecords?: number;
}

interface StoredRecord {
  key: string;
  value: string;
  labels: Record<string, string>;
}

/** Registers the records capabilities over a fresh in-memory store. */
export function registerRecords(registry: CapabilityRegistry, options: RecordsOptions = {}): void {
  const store = new Map<string, StoredRecord>();
  const maxRecords = options.maxRecords ?? 10_000;
  const record = t.struct({ key: t.str(), value: t.str(), labels: t.dict(t.str()) });
  registry.register({
    name: "records.put",
    summary: "Store a record (string value with optional labels) under a key",
    searchTerms: ["save", "set", "write", "store"],
    input: t.fields({ key: t.str(), value: t.str(), labels: t.ptr(t.dict(t.str())) }),
    output: t.fields({ record }),
    handler: ({ key, value, labels }) => {
      if (!store.has(key as string) && store.size >= maxRecords) {
        throw new AgentError(`the store is full (${maxRecords} records)`);
      }
      const rec = {
        key: key as string,
        value: value as string,
        labels: (labels ?? {}) as Record<string, string>,
      };
      store.set(rec.key, rec);
      return { record: rec };
    },
  });
  registry.register({
    name: "records.get",
    readOnly: true,
    summary: "Get the record stored under a key; None when absent",
    searchTerms: ["lookup", "read", "fetch"],
    input: t.fields({ key: t.str() }),
    output: t.fields({ record: t.ptr(record) }),
    handler: ({ key }) => ({ record: store.get(key as string) ?? null }),
  });
  registry.register({
    name: "records.delete",
    summary: "Delete the record under a key; reports whether it existed",
    searchTerms: ["remove", "drop"],
    input: t.fields({ key: t.str() }),
    output: t.fields({ deleted: t.bool() }),
    handler: ({ key }) => ({ deleted: store.delete(key as string) }),
  });
  registry.register({
    name: "records.list",
    readOnly: true,
    summary: "List records, optionally by key prefix and label values",
    searchTerms: ["find", "search", "query", "filter"],
    input: t.fields({
      prefix: t.ptr(t.str()),
      labels: t.ptr(t.dict(t.str())),
      limit: t.ptr(t.uint16()),
    }),
    output: t.fields({ records: t.list(record) }),
    handler: ({ prefix, labels, limit }) => {
      const want = Object.entries((labels ?? {}) as Record<string, string>);
      const out = [...store.values()]
        .filter((record) => record.key.startsWith((prefix as string) ?? ""))
        .filter((record) => want.every(([key, value]) => record.labels[key] === value))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      return { records: out.slice(0, (limit as number) ?? 100) };
    },
  });
}
