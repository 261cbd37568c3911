/**
 * MCP capability server (docs/mcp-server.md): a registry of host capabilities, the three tools
 * `search_api`, `describe_api` and `execute` (Starlark), authorization policy, transports.
 * @module
 */
export { createCapabilityServer, createExecutePool } from "./tools/server.ts";
export type { CapabilityServerOptions, InvocationResolver, ToolContext } from "./tools/server.ts";
export { CapabilityRegistry, RegistrationError } from "./capabilities/registry.ts";
export type {
  Capability,
  CapabilityContext,
  CapabilityDefinition,
  CapabilityHandler,
  Subject,
} from "./capabilities/registry.ts";
export { type Field, type Schema, t } from "./capabilities/schema.ts";
export { AgentError } from "./tools/agent_error.ts";
export { DEFAULT_LIMITS, type Limits, resolveLimits } from "./limits.ts";
export {
  allowAll,
  type AuthorizationRequest,
  type Authorizer,
  PermissionDenied,
} from "./auth/authorizer.ts";
export {
  type Condition,
  loadPolicy,
  parsePolicy,
  type Policy,
  policyAuthorizer,
  type PolicyRule,
  type ScopeRule,
} from "./auth/policy.ts";
export { type StepUp, stepUpOf } from "./auth/step_up.ts";
export { ExecutePool, type ExecutePoolOptions } from "./execute/pool.ts";
export type { PoolOutcome, RunOptions as PoolRunOptions } from "./execute/pool.ts";
export type { CallMessage, CallReply, DoneMessage, JobMessage } from "./execute/protocol.ts";
export type { Budgets, ErrorCode, ErrorKind } from "@svc/starlark";
export type { FieldOptions } from "./capabilities/schema.ts";
export { ErrorText } from "./tools/errors.ts";
