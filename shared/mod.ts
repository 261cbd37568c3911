/**
 * The service kit every service in the workspace stands on (`README.md` beside this file maps it).
 * Import from the subpath of the concept you need (`@svc/shared/settings`, `@svc/shared/server`,
 * …); this module re-exports the small ones (settings bring the `yaml` package, nothing else).
 * OpenAPI and `/docs`, tracing and OTLP metrics, the codecs and the by-URL loader are only
 * reachable by subpath (`@svc/shared/openapi`, …): some pull in npm packages, and a service
 * imports what it uses. The test tools are a package of their own, `@svc/testing`.
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
export * from "./lifecycle/build_info.ts";
export * from "./observe/metrics.ts";
