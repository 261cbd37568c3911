/**
 * Authorization of capability calls: an {@linkcode Authorizer} gets the subject, the capability
 * name and the canonical arguments. It returns true to allow; false or a thrown
 * {@linkcode PermissionDenied} is a recognized denial (`permission denied`); anything else thrown
 * is a policy evaluation failure (`authorization policy failure`).
 * @module
 */
import type { Subject } from "../capabilities/registry.ts";

/** What is being authorized. */
export interface AuthorizationRequest {
  /** The trusted caller. */
  subject: Subject;
  /** Dotted capability name. */
  capability: string;
  /** Canonical arguments: bound values, nil pointers omitted. */
  arguments: Record<string, unknown>;
}

/** Decides one capability call. */
export type Authorizer = (request: AuthorizationRequest) => boolean | Promise<boolean>;

/** A recognized denial. */
export class PermissionDenied extends Error {
  /** Stable code (the client sees `permission denied`). */
  readonly code = "permission_denied";
  /**
   * Creates a denial.
   * @param message Kept for logs; the client only ever sees `permission denied`.
   */
  constructor(message = "permission denied") {
    super(message);
    this.name = "PermissionDenied";
  }
}

/** Allows every call (for tests and explicitly trusted setups only). */
export function allowAll(): Authorizer {
  return () => true;
}
