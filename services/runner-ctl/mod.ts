/**
 * runner-ctl as a library: the controller run mode and its parts, for tests and tools.
 *
 * @module
 */
export { main } from "./main.ts";
export { runController, type RunDeps } from "./run.ts";
export { loadConfig, type RunnerCtlConfig } from "./config/load_config.ts";
export { Controller, type ControllerOptions } from "./controller/controller.ts";
export { BUILD, versionLine } from "./version.ts";
