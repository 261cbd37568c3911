/**
 * The service kit every service in the workspace stands on. Import from the subpath of the concept
 * you need (`@svc/shared/settings`, `@svc/shared/server`, …); this module re-exports the small
 * ones (settings bring the `yaml` package, nothing else). `@svc/shared/metrics`, `@svc/shared/openapi` and `@svc/testing`
 * pull in npm packages or spawn processes, so they are only reachable by subpath.
 *
 * @example Usage
 * ```ts
 * import { createLogger, defineSettings, HttpError, runMain } from "@svc/shared";
 * ```
 * @module
 */
export * from "./codec/duration.ts";
export * from "./settings/mod.ts";
export * from "./lifecycle/main.ts";
export * from "./observe/log.ts";
export * from "./http/problem.ts";
export * from "./http/mod.ts";
export * from "./http/server.ts";
export * from "./lifecycle/mod.ts";
export * from "./http/health.ts";
