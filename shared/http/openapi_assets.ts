/**
 * The parts of the OpenAPI routes (`openapi.ts`) loaded on their first request: the YAML form of
 * the document and Swagger UI's files from the `swagger-ui-dist` npm package. `openapi.ts` imports
 * this module by URL, so that `deno run` does not read these packages at every start (it takes
 * every literal dynamic import into the module graph it builds before running: ≈ 10 ms of CPU
 * for each of these two packages); `deno compile` embeds it through `KIT_ON_DEMAND`
 * (`../lifecycle/on_demand.ts`).
 *
 * @module
 */

import { stringify } from "yaml";

/** The document as YAML, without anchors for objects that appear twice. */
export function toYaml(doc: object): string {
  return stringify(doc, { aliasDuplicateObjects: false });
}

/**
 * The text of a Swagger UI file: literal specifiers, each loaded when first asked for (a binary
 * embeds them; the 1.5 MB bundle is parsed by no one here, only served).
 */
export async function swaggerAsset(
  name: "swagger-ui.css" | "swagger-ui-bundle.js",
): Promise<string> {
  const module = name === "swagger-ui.css"
    ? await import("swagger-ui-dist/swagger-ui.css", { with: { type: "text" } })
    : await import("swagger-ui-dist/swagger-ui-bundle.js", { with: { type: "text" } });
  return module.default;
}
