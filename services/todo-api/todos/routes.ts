/**
 * The four `/v1/todos` operations. Each authorizes its action, then talks to the store.
 * Statuses: list 200, create 201 (+ Location), get 200, complete 200 (idempotent: completing a
 * completed todo returns it unchanged, keeping the first completedAt). A todo of another
 * subject is reported as 404 to a `user`, never revealing that it exists.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import { readBody } from "@svc/shared/http";
import type { Principal } from "../auth/api_keys.ts";
import { authorize, ownerScope } from "../auth/policy.ts";
import { requireJson } from "../http/content_type.ts";
import { schemaJson } from "../http/schema_link.ts";
import { type CursorCodec, InvalidCursorError } from "./cursor.ts";
import type { Todo, TodoStore } from "./todo_store.ts";
import { parseCreateTodo, parseListQuery } from "./validate.ts";

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

function badCursor(): HttpError {
  return new HttpError(400, "invalid_cursor", "invalid cursor", {
    errors: [{ location: "query.cursor", message: "invalid cursor" }],
  });
}

/** Builds the handlers. */
export function createTodoRoutes(deps: TodoRoutesDeps) {
  return {
    /** `url`: the request's URL when already parsed (the route table's). */
    async list(req: Request, principal: Principal, url = new URL(req.url)): Promise<Response> {
      authorize(principal, "todos.list");
      const scope = ownerScope(principal);
      const query = parseListQuery(url);
      const codec = await deps.cursorCodec();
      let after;
      if (query.cursor !== undefined) {
        try {
          after = await codec.decode(query.cursor, scope);
        } catch (err) {
          if (err instanceof InvalidCursorError) throw badCursor();
          throw err;
        }
      }
      const page = await deps.todos.list(scope, { limit: query.limit, after });
      const body: { todos: Todo[]; nextCursor?: string } = { todos: page.todos };
      if (page.more) {
        const last = page.todos[page.todos.length - 1];
        body.nextCursor = await codec.encode({ createdAt: last.createdAt, id: last.id }, scope);
      }
      return schemaJson(req, "ListTodosOutputBody", body);
    },

    async create(req: Request, principal: Principal): Promise<Response> {
      authorize(principal, "todos.create");
      requireJson(req);
      const { title } = parseCreateTodo(
        await readBody(req, {
          limit: deps.maxBodyBytes,
          timeoutMs: deps.bodyTimeoutMs,
        }),
      );
      const todo = await deps.todos.create(principal.subject, title);
      return schemaJson(req, "Todo", todo, {
        status: 201,
        headers: { location: `/v1/todos/${todo.id}` },
      });
    },

    async get(req: Request, principal: Principal, id: string): Promise<Response> {
      authorize(principal, "todos.get");
      const todo = await deps.todos.get(id, ownerScope(principal));
      if (!todo) throw notFound(id);
      return schemaJson(req, "Todo", todo);
    },

    async complete(req: Request, principal: Principal, id: string): Promise<Response> {
      authorize(principal, "todos.complete");
      const todo = await deps.todos.complete(id, ownerScope(principal));
      if (!todo) throw notFound(id);
      return schemaJson(req, "Todo", todo);
    },
  };
}
