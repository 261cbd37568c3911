/**
 * The test kit: start a service as a real process and wait until it answers, run a command, wait
 * on an event instead of the clock, skip a suite that lacks a tool and say why, run steps
 * concurrently, hold keep-alive connections, and fuzz a server over raw sockets. Hostile inputs
 * (`@svc/testing/hostile`), the JSON-schema check (`@svc/testing/schema-check`, which brings
 * `ajv`) and the OTLP receiver (`@svc/testing/otlp-receiver`) are reachable by subpath.
 *
 * Only tests, benchmarks and their support modules import this package; no product file does
 * (`tests/repo/product_imports_test.ts` fails otherwise).
 *
 * @example Usage
 * ```ts
 * import { runCommand } from "@svc/testing";
 * import assert from "node:assert/strict";
 * const { code, stdout } = await runCommand(Deno.execPath(), ["--version"]);
 * assert.equal(code, 0);
 * assert.match(stdout, /^deno /);
 * ```
 * @module
 */
export {
  type CommandResult,
  runCommand,
  type ServiceProcess,
  startService,
  type StartServiceOptions,
} from "./process.ts";
export { evalUntilSigterm } from "./eval_until_sigterm.ts";
export {
  type KeepAliveClients,
  type KeepAliveClientsOptions,
  type KeepAliveRecord,
  startKeepAliveClients,
} from "./keep_alive_clients.ts";
export {
  type FuzzCase,
  type FuzzCaseOptions,
  fuzzCases,
  type FuzzDelivery,
  type FuzzReport,
  type FuzzResult,
  type FuzzTarget,
  runFuzz,
  type RunFuzzOptions,
  seededRandom,
  sendFuzzCase,
} from "./raw_http_fuzz.ts";
export { concurrentSteps, type ConcurrentStepsOptions } from "./concurrent_steps.ts";
export { SKIPPED_PREFIX, skipSuite, type SkipSuiteOptions } from "./skip_suite.ts";
export { nextTurn, waitUntil, type WaitUntilOptions } from "./wait_until.ts";
