/**
 * The SQL the todo-api benchmark's baselines run: the statements `todo_store.ts` issues for a
 * create and a first page, shared by the raw postgres.js loops and the HTTP floor server; and the
 * floor's handler itself, shared by that server and the in-process benchmark (`handler.ts`).
 */

/** A todo's columns as the API returns them. */
const COLUMNS = `id::text as id, title, status,
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "createdAt",
  to_char(completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "completedAt"`;
/** Create: `$1` owner, `$2` title. */
export const INSERT = `insert into todos (owner, title) values ($1, $2) returning ${COLUMNS}`;
/** First page: `$1` limit (+1 to learn whether more follow), `$2` owner. */
export const FIRST_PAGE =
  `select ${COLUMNS} from todos where owner = $2 order by todos.created_at, todos.id limit $1`;

const JSON_TYPE = { "content-type": "application/json" };

/**
 * The HTTP floor's handler: the least a server can do for a create and a first page — parse,
 * run the statement with `query`, answer the rows as JSON; no authentication, validation,
 * cursor, access log, metrics or problem bodies.
 */
export function floorHandler(
  query: (text: string, params: unknown[]) => Promise<readonly Record<string, unknown>[]>,
): (req: Request) => Promise<Response> {
  return async (req) => {
    if (req.method === "POST") {
      const { title } = await req.json();
      const [row] = await query(INSERT, ["bench", title]);
      return new Response(JSON.stringify(row), { status: 201, headers: JSON_TYPE });
    }
    const limit = Number(new URL(req.url).searchParams.get("limit") ?? 20);
    const rows = await query(FIRST_PAGE, [limit + 1, "bench"]);
    return new Response(JSON.stringify({ items: rows.slice(0, limit) }), { headers: JSON_TYPE });
  };
}
