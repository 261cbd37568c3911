/**
 * ajv's validator classes, loaded with the first OpenAPI document (`loadDocument` awaits
 * {@linkcode loadAjv}): a server without `--openapi` documents starts without ajv, and the response
 * validators, which compile synchronously on first use, find the classes loaded.
 *
 * @module
 */

/** ajv's draft-07 and 2020-12 validator classes. */
export interface AjvClasses {
  Ajv: typeof import("ajv").Ajv;
  Ajv2020: typeof import("ajv/dist/2020.js").Ajv2020;
}

let loaded: AjvClasses | undefined;

/** Loads ajv once. */
export async function loadAjv(): Promise<void> {
  if (loaded) return;
  const [{ Ajv }, { Ajv2020 }] = await Promise.all([import("ajv"), import("ajv/dist/2020.js")]);
  loaded = { Ajv, Ajv2020 };
}

/** The classes {@linkcode loadAjv} loaded. @throws {Error} when it has not run yet. */
export function ajvClasses(): AjvClasses {
  if (!loaded) throw new Error("Cannot compile a response validator: ajv is not loaded");
  return loaded;
}
