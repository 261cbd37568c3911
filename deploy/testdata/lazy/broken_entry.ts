// Declares a module that does not exist: the derivation must fail, not leave it out.
import { lazyModuleAt } from "@svc/shared/lazy-module";

export const missing = lazyModuleAt(import.meta.resolve("./missing.ts"));
