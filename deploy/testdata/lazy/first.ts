// Loaded on first use; declares a module of its own, which only importing it reveals.
import { lazyModuleAt } from "@svc/shared/lazy-module";

export const second = lazyModuleAt<typeof import("./second.ts")>(
  import.meta.resolve("./second.ts"),
);
