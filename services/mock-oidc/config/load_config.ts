/**
 * Find the JSON configuration, first present: `JSON_CONFIG` (inline), `JSON_CONFIG_PATH`
 * (a file; must exist when set), `./config.json`, built-in defaults.
 *
 * @module
 */

import { configError } from "./config_error.ts";
import { DEFAULT_CONFIG, type OidcConfig, parseJsonConfig } from "./json_config.ts";

/** Where the configuration came from, and what it says. */
export interface LoadedConfig {
  config: OidcConfig;
  source: "JSON_CONFIG" | "JSON_CONFIG_PATH" | "./config.json" | "defaults";
}

/** Options of {@linkcode loadJsonConfig}; injectable for tests. */
export interface LoadConfigOptions {
  env: (name: string) => string | undefined;
  readTextFile?: (path: string) => Promise<string>;
  cwd?: string;
}

/** Load and parse the JSON configuration, then read the `loginPagePath` file it names. */
export async function loadJsonConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const read = options.readTextFile ?? ((path: string) => Deno.readTextFile(path));
  const loaded = await loadConfigText(options, read);
  const path = loaded.config.loginPagePath;
  if (path !== undefined && path !== "") {
    try {
      loaded.config.loginPage = await read(path);
    } catch (err) {
      throw configError("loginPagePath", `cannot read file (${(err as Error).name})`);
    }
  }
  return loaded;
}

async function loadConfigText(
  options: LoadConfigOptions,
  read: (path: string) => Promise<string>,
): Promise<LoadedConfig> {
  const inline = options.env("JSON_CONFIG");
  if (inline !== undefined && inline.trim() !== "") {
    return { config: parseJsonConfig(inline, "JSON_CONFIG"), source: "JSON_CONFIG" };
  }
  const path = options.env("JSON_CONFIG_PATH");
  if (path !== undefined && path !== "") {
    let text: string;
    try {
      text = await read(path);
    } catch (err) {
      throw configError("JSON_CONFIG_PATH", `cannot read file (${(err as Error).name})`);
    }
    return { config: parseJsonConfig(text, "JSON_CONFIG_PATH"), source: "JSON_CONFIG_PATH" };
  }
  const local = `${options.cwd ?? "."}/config.json`;
  let text: string | undefined;
  try {
    text = await read(local);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      throw configError("./config.json", `cannot read file (${(err as Error).name})`);
    }
  }
  if (text !== undefined) {
    return { config: parseJsonConfig(text, "./config.json"), source: "./config.json" };
  }
  return { config: { ...DEFAULT_CONFIG }, source: "defaults" };
}
