/**
 * Todo rows in SQL. Ownership: every todo belongs to the subject of the key that created it; a
 * scoped caller (role `user`) only sees its own, an unscoped one (role `admin`, or authorization
 * disabled) sees all. Timestamps leave the database as RFC 3339 text with microseconds, so
 * nothing is lost to JavaScript's millisecond `Date`.
 * @module
 */
import type { Queryable, Row } from "../store/db.ts";

/** The API's Todo (TodoDTO) without `$schema`. */
export interface Todo extends Row {
  id: string;
  title: string;
  status: "open" | "completed";
  createdAt: string;
  completedAt?: string;
}

/** A keyset position: the last row of the previous page. */
export interface Position {
  /** Its `createdAt`, the first sort key. */
  createdAt: string;
  /** Its id, the tie-breaker between rows created in the same microsecond. */
  id: string;
}

/** Whose todos a caller may see: one owner, or everyone (`null`). */
export type OwnerScope = string | null;

const RFC3339_US = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/**
 * The selected columns. PGlite decodes every text field with a default `TextDecoder`, which
 * drops a leading U+FEFF: a title that starts with one would come back shorter than it went in
 * (and could even come back empty). On PGlite the title therefore leaves the database as its
 * UTF-8 bytes and is decoded here with the BOM kept, so both backends return the same title.
 */
function columnsFor(kind: "postgres" | "pglite"): string {
  const title = kind === "pglite" ? `convert_to(title, 'UTF8') as title` : "title";
  return `id::text as id, ${title}, status,
  to_char(created_at at time zone 'UTC', ${RFC3339_US}) as "createdAt",
  to_char(completed_at at time zone 'UTC', ${RFC3339_US}) as "completedAt"`;
}

const UTF8_KEEPING_BOM = new TextDecoder("utf-8", { ignoreBOM: true });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string can be a todo id (the column is a uuid; anything else cannot exist). */
function isTodoId(id: string): boolean {
  return UUID.test(id);
}

// A fresh object of one fixed shape (deleting the null `completedAt` instead would turn rows
// into slow dictionary-mode objects right before JSON.stringify).
function tidy(row: Todo): Todo {
  const title = typeof row.title === "string"
    ? row.title
    : UTF8_KEEPING_BOM.decode(row.title as unknown as Uint8Array);
  const todo: Todo = { id: row.id, title, status: row.status, createdAt: row.createdAt };
  if (row.completedAt !== null) todo.completedAt = row.completedAt;
  return todo;
}

function tidyFirst(rows: Todo[]): Todo {
  return tidy(rows[0]);
}

/** SQL for todos; the same statements run on Postgres and PGlite (`kind` defaults to postgres). */
export function createTodoStore(db: Queryable & { readonly kind?: "postgres" | "pglite" }) {
  const COLUMNS = columnsFor(db.kind ?? "postgres");
  // Statement texts made once: a text built per call is a new string each time, which the
  // driver's prepared-statement cache has to hash again before it finds the statement.
  const INSERT = `insert into todos (owner, title) values ($1, $2) returning ${COLUMNS}`;
  const GET_ANY = `select ${COLUMNS} from todos where id = $1`;
  const GET_OWN = `select ${COLUMNS} from todos where id = $1 and owner = $2`;
  const COMPLETE =
    `update todos set status = 'completed', completed_at = coalesce(completed_at, now())
         where id = $1 and ($2::text is null or owner = $2::text) returning ${COLUMNS}`;
  const pageSql = (scoped: boolean, after: boolean) => {
    const where: string[] = [];
    if (scoped) where.push("owner = $2");
    // `::text` first: postgres.js would otherwise serialize a timestamptz parameter through a JS
    // Date and drop the microseconds (the precision trap the cursor exists to avoid).
    const at = scoped ? 3 : 2;
    if (after) where.push(`(created_at, id) > ($${at}::text::timestamptz, $${at + 1}::uuid)`);
    // ORDER BY names the table's columns: a bare `id` would mean the text alias and defeat the
    // (owner, created_at, id) index.
    return `select ${COLUMNS} from todos ${where.length ? "where " + where.join(" and ") : ""}
         order by todos.created_at, todos.id limit $1`;
  };
  const PAGE = [[pageSql(false, false), pageSql(false, true)], [
    pageSql(true, false),
    pageSql(true, true),
  ]];
  return {
    create(owner: string, title: string): Promise<Todo> {
      // Not async, and the row indexed rather than destructured: no frame and no iterator per
      // create (a failed query rejects the same).
      return db.query<Todo>(INSERT, [owner, title]).then(tidyFirst);
    },

    async get(id: string, scope: OwnerScope): Promise<Todo | undefined> {
      if (!isTodoId(id)) return undefined;
      const rows = scope === null
        ? await db.query<Todo>(GET_ANY, [id])
        : await db.query<Todo>(GET_OWN, [id, scope]);
      return rows[0] && tidy(rows[0]);
    },

    /** Idempotent: completing a completed todo keeps its first `completedAt`. */
    async complete(id: string, scope: OwnerScope): Promise<Todo | undefined> {
      if (!isTodoId(id)) return undefined;
      const rows = await db.query<Todo>(COMPLETE, [id, scope]);
      return rows[0] && tidy(rows[0]);
    },

    /**
     * One page, oldest first, after `after` (exclusive). Fetches `limit + 1` rows to learn whether
     * another page exists without counting.
     */
    async list(
      scope: OwnerScope,
      options: { limit: number; after?: Position },
    ): Promise<{ todos: Todo[]; more: boolean }> {
      const params: unknown[] = [options.limit + 1];
      if (scope !== null) params.push(scope);
      if (options.after) params.push(options.after.createdAt, options.after.id);
      const rows = await db.query<Todo>(
        PAGE[scope === null ? 0 : 1][options.after ? 1 : 0],
        params,
      );
      const more = rows.length > options.limit;
      return { todos: rows.slice(0, options.limit).map(tidy), more };
    },
  };
}

/** The todo store's interface. */
export type TodoStore = ReturnType<typeof createTodoStore>;
