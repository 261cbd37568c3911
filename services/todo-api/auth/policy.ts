/**
 * Deny-by-default authorization. Every action lists the roles allowed to perform it; an action
 * missing here is forbidden to everyone. Each `/v1` row of `app.ts`'s route table names its action
 * (`auth: "todos.create"`), and `route_auth.ts` checks it before the handler runs. Roles: `user`
 * may use the todo actions on its own todos, `admin` may do everything on every todo and manage
 * keys (`/v1/keys`). A valid key whose roles grant nothing (any other role name an operator gave
 * it) gets 403.
 * @module
 */
import { HttpError } from "@svc/shared/problem";
import type { Principal } from "./api_keys.ts";
import type { OwnerScope } from "../todos/todo_store.ts";

/** The protected actions, one per `/v1` operation. */
export type Action =
  | "todos.list"
  | "todos.create"
  | "todos.get"
  | "todos.complete"
  | "keys.create"
  | "keys.list"
  | "keys.get"
  | "keys.revoke";

/** Which roles may perform each action. */
export const POLICY: Readonly<Record<Action, readonly string[]>> = {
  "todos.list": ["user", "admin"],
  "todos.create": ["user", "admin"],
  "todos.get": ["user", "admin"],
  "todos.complete": ["user", "admin"],
  "keys.create": ["admin"],
  "keys.list": ["admin"],
  "keys.get": ["admin"],
  "keys.revoke": ["admin"],
};

/** Roles that see every subject's todos. */
const UNSCOPED_ROLES = ["admin"];

/** The principal used when authorization is disabled: acts as an admin named "anonymous". */
export const ANONYMOUS: Principal = { subject: "anonymous", roles: ["admin"] };

/** Throws 403 unless one of the principal's roles is allowed the action. */
export function authorize(principal: Principal, action: Action): void {
  if (!anyOf(principal.roles, POLICY[action] ?? NONE)) {
    throw new HttpError(403, "forbidden", `the key's roles do not permit ${action}`);
  }
}

/** Whose todos the principal sees: all for admins, else its own subject's. */
export function ownerScope(principal: Principal): OwnerScope {
  return anyOf(principal.roles, UNSCOPED_ROLES) ? null : principal.subject;
}

const NONE: readonly string[] = [];

/** Whether a role is in both lists (a loop: no callback made per request, as `some` needs). */
function anyOf(roles: readonly string[], allowed: readonly string[]): boolean {
  for (let i = 0; i < roles.length; i++) if (allowed.includes(roles[i])) return true;
  return false;
}
