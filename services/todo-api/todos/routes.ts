/**
 * The four `/v1/todos` operations, each behind its row's `auth` in `app.ts` (the caller arrives
 * authenticated and allowed the action, in `ctx.principal`). Statuses: list 200, create 201
 * (+ Location), get 200, complete 200 (idempotent: completing a completed todo returns it
 * unchanged, keeping the first completedAt). A todo of another subject is reported as 404 to a
 * `user`, never revealing that it exists.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import { readText } from "@svc/shared/http";
import type { AuthedContext } from "../auth/route_auth.ts";
import { ownerScope } from "../auth/policy.ts";
import { requireJson } from "../http/content_type.ts";
import { schemaJson } from "../http/schema_link.ts";
import type { CursorCodec } from "./cursor.ts";
import type { Todo, TodoStore } from "./todo_store.ts";
import { parseCreateTodo, parseListQuery, pathId } from "./validate.ts";

/** What the todo routes need. */
export interface TodoRoutesDeps {
  todos: TodoStore;
  /** The cursor codec; async because its key may first have to be read from the database. */
  cursorCodec(): Promise<CursorCodec>;
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number;
  /** Time allowed for the whole body to arrive. */
  bodyTimeoutMs: number;
}

function notFound(id: string): HttpError {
  return new HttpError(404, "not_found", "todo not found", {
    errors: [{ location: "path.id", message: "no todo with this id", value: id }],
  });
}

/** Builds the handlers. */
export function createTodoRoutes(deps: TodoRoutesDeps) {
  const readOptions = { limit: deps.maxBodyBytes, timeoutMs: deps.bodyTimeoutMs };
  return {
    async list(req: Request, ctx: AuthedContext): Promise<Response> {
      const scope = ownerScope(ctx.principal);
      const query = parseListQuery(ctx.url);
      const codec = await deps.cursorCodec();
      // A cursor not minted for this scope throws InvalidCursorError: 400 at the boundary.
      const after = query.cursor === undefined
        ? undefined
        : await codec.decode(query.cursor, scope);
      const page = await deps.todos.list(scope, { limit: query.limit, after });
      const body: { todos: Todo[]; nextCursor?: string } = { todos: page.todos };
      if (page.more) {
        const last = page.todos[page.todos.length - 1];
        body.nextCursor = await codec.encode({ createdAt: last.createdAt, id: last.id }, scope);
      }
      return schemaJson(req, "ListTodosOutputBody", body);
    },

    // Not async: a chain of two callbacks costs less than a frame kept across two waits, and what
    // is thrown before the first wait (a 415) comes back as a rejection all the same.
    create(req: Request, ctx: AuthedContext): Promise<Response> {
      try {
        requireJson(req);
      } catch (err) {
        return Promise.reject(err);
      }
      return readText(req, readOptions)
        .then((text) => deps.todos.create(ctx.principal.subject, parseCreateTodo(text).title))
        .then((todo) =>
          schemaJson(req, "Todo", todo, {
            status: 201,
            headers: { location: `/v1/todos/${todo.id}` },
          })
        );
    },

    async get(req: Request, ctx: AuthedContext): Promise<Response> {
      const id = pathId(ctx.params.id);
      const todo = await deps.todos.get(id, ownerScope(ctx.principal));
      if (!todo) throw notFound(id);
      return schemaJson(req, "Todo", todo);
    },

    async complete(req: Request, ctx: AuthedContext): Promise<Response> {
      const id = pathId(ctx.params.id);
      const todo = await deps.todos.complete(id, ownerScope(ctx.principal));
      if (!todo) throw notFound(id);
      return schemaJson(req, "Todo", todo);
    },
  };
}
