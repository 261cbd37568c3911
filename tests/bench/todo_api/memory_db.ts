/**
 * The todo-api benchmarks' database that answers from memory (`handler.ts`, `http_mem.ts`): the
 * rows postgres.js would hand over for a key lookup, the cursor secret, a create and a first page,
 * so that what is measured is the service's own work, not a database's.
 */
import type { Db, Row } from "../../../services/todo-api/store/db.ts";

function todo(i: number) {
  return {
    id: `0190a8b4-7c1e-7d2a-9f00-${String(i).padStart(12, "0")}`,
    title: `benchmark todo ${i}`,
    status: "open",
    createdAt: `2026-11-24T01:02:03.${String(100000 + i).slice(1)}Z`,
    completedAt: null,
  };
}
/** A first page of 20 and the one more row that tells a next page exists. */
const PAGE = Array.from({ length: 21 }, (_, i) => todo(i));

/** The API key the memory database knows (a user key of subject `bench`). */
export const KEY = "todo_benchmarkkeybenchmarkkeybenchmarkkey0000";

/** Answers todo-api's statements from memory, as postgres.js would hand rows over. */
export const memoryDb: Db = {
  kind: "postgres",
  query<T extends Row>(text: string): Promise<T[]> {
    let rows: Row[] = [];
    if (text.includes("from api_keys")) rows = [{ subject: "bench", roles: "user" }];
    else if (text.includes("from server_secrets")) rows = [{ value: "ab".repeat(32) }];
    else if (text.startsWith("insert into todos")) rows = [{ ...todo(1) }];
    else if (text.startsWith("select")) rows = PAGE.map((r) => ({ ...r }));
    return Promise.resolve(rows as T[]);
  },
  exec: () => Promise.resolve(),
  session: (fn) => fn(memoryDb),
  ping: () => Promise.resolve(),
  close: () => Promise.resolve(),
};
