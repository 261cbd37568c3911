/**
 * Demo capabilities `todos.list`, `todos.get`, `todos.create`, `todos.complete`: the todo API
 * over HTTP with an API key. API errors become agent-visible `capability failed: <message>`.
 * @module
 */
import type { CapabilityRegistry } from "../capabilities/registry.ts";
import { t } from "../capabilities/schema.ts";
import { AgentError } from "../tools/agent_error.ts";

/** Options of {@linkcode registerTodos}. */
export interface TodosOptions {
  /** Base URL of the todo API, e.g. `http://127.0.0.1:8081`. */
  baseUrl: string;
  /** API key sent as `X-API-Key` (never logged). */
  apiKey?: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Per-request timeout, ms. @default 5000 */
  timeoutMs?: number;
}

const todo = t.struct([
  t.field("id", t.str()),
  t.field("title", t.str()),
  t.field("status", t.str()),
  t.field("createdAt", t.str()),
  t.field("completedAt", t.ptr(t.str()), { omitEmpty: true }),
]);

/** Registers the todo capabilities. */
export function registerTodos(registry: CapabilityRegistry, options: TodosOptions): void {
  const doFetch = options.fetch ?? fetch;
  const call = async (method: string, path: string, signal: AbortSignal, body?: unknown) => {
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.apiKey) headers["x-api-key"] = options.apiKey;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await doFetch(new URL(path, options.baseUrl), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs ?? 5000)]),
    });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      const detail = typeof data?.detail === "string" ? data.detail : data?.title;
      throw new AgentError(`todo API answered ${res.status}${detail ? `: ${detail}` : ""}`);
    }
    return data;
  };
  const pick = (x: Record<string, unknown>) => ({
    id: x.id,
    title: x.title,
    status: x.status,
    createdAt: x.createdAt,
    completedAt: x.completedAt ?? null,
  });
  registry.register({
    name: "todos.list",
    summary: "List todos, oldest first, one page at a time",
    description: "Pages hold up to `limit` todos (1 to 100, default 20); pass `cursor` from " +
      "`next_cursor` to get the next page. `next_cursor` is absent on the last page.",
    searchTerms: ["tasks", "items", "page"],
    input: t.fields({ limit: t.ptr(t.int32()), cursor: t.ptr(t.str()) }),
    output: [
      t.field("todos", t.list(todo)),
      t.field("next_cursor", t.ptr(t.str()), { omitEmpty: true }),
    ],
    handler: async ({ limit, cursor }, { signal }) => {
      const q = new URLSearchParams();
      if (limit !== undefined) q.set("limit", String(limit));
      if (cursor !== undefined) q.set("cursor", String(cursor));
      const data = await call("GET", `/v1/todos?${q}`, signal);
      return { todos: (data.todos ?? []).map(pick), next_cursor: data.nextCursor ?? null };
    },
  });
  registry.register({
    name: "todos.get",
    summary: "Get one todo by id",
    searchTerms: ["task", "fetch"],
    input: t.fields({ id: t.str() }),
    output: t.fields({ todo }),
    handler: async ({ id }, { signal }) => ({
      todo: pick(await call("GET", `/v1/todos/${encodeURIComponent(String(id))}`, signal)),
    }),
  });
  registry.register({
    name: "todos.create",
    summary: "Create an open todo with a title (1 to 200 characters)",
    searchTerms: ["task", "add", "new"],
    input: t.fields({ title: t.str() }),
    output: t.fields({ todo }),
    handler: async ({ title }, { signal }) => ({
      todo: pick(await call("POST", "/v1/todos", signal, { title })),
    }),
  });
  registry.register({
    name: "todos.complete",
    summary: "Mark a todo completed",
    searchTerms: ["task", "done", "finish", "close"],
    input: t.fields({ id: t.str() }),
    output: t.fields({ todo }),
    handler: async ({ id }, { signal }) => ({
      todo: pick(
        await call("POST", `/v1/todos/${encodeURIComponent(String(id))}/complete`, signal),
      ),
    }),
  });
}
