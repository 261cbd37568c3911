// A service entry in miniature: declares a module loaded on first use, and a built-in.
import { lazyModuleAt } from "@svc/shared/lazy-module";
import { notDeclared } from "./not_declared.ts";

export const first = lazyModuleAt<typeof import("./first.ts")>(import.meta.resolve("./first.ts"));
export const threads = lazyModuleAt<typeof import("node:worker_threads")>(
  import.meta.resolve("node:worker_threads"),
);
export { notDeclared };
