/**
 * The SQL the todo-api benchmark's baselines run: the statements `todo_store.ts` issues for a
 * create and a first page, shared by the raw postgres.js loops and the HTTP floor server.
 */

/** A todo's columns as the API returns them. */
export const COLUMNS = `id::text as id, title, status,
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "createdAt",
  to_char(completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "completedAt"`;
/** Create: `$1` owner, `$2` title. */
export const INSERT = `insert into todos (owner, title) values ($1, $2) returning ${COLUMNS}`;
/** First page: `$1` limit (+1 to learn whether more follow), `$2` owner. */
export const FIRST_PAGE =
  `select ${COLUMNS} from todos where owner = $2 order by todos.created_at, todos.id limit $1`;
