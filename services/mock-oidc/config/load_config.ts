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
  /** What the operator should hear about at start (logged as warnings). */
  warnings: string[];
}

/** Options of {@linkcode loadJsonConfig}; injectable for tests. */
export interface LoadConfigOptions {
  env: (name: string) => string | undefined;
  readTextFile?: (path: string) => Promise<string>;
  cwd?: string;
}

/**
 * Load and parse the JSON configuration. As upstream: a `JSON_CONFIG_PATH` file that does not
 * exist starts with the defaults and a warning; one that exists but cannot be read or parsed stops
 * the start. `loginPagePath` is read per request by the login page, not here.
 */
export async function loadJsonConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const read = options.readTextFile ?? ((path: string) => Deno.readTextFile(path));
  return await loadConfigText(options, read);
}

async function loadConfigText(
  options: LoadConfigOptions,
  read: (path: string) => Promise<string>,
): Promise<LoadedConfig> {
  const inline = options.env("JSON_CONFIG");
  if (inline !== undefined && inline.trim() !== "") {
    return {
      config: parseJsonConfig(inline, "JSON_CONFIG"),
      source: "JSON_CONFIG",
      warnings: [],
    };
  }
  const path = options.env("JSON_CONFIG_PATH");
  if (path !== undefined && path !== "") {
    let text: string;
    try {
      text = await read(path);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) {
        throw configError("JSON_CONFIG_PATH", `cannot read file (${(err as Error).name})`);
      }
      return {
        config: { ...DEFAULT_CONFIG },
        source: "defaults",
        warnings: ["JSON_CONFIG_PATH names no file; starting with the default configuration"],
      };
    }
    return {
      config: parseJsonConfig(text, "JSON_CONFIG_PATH"),
      source: "JSON_CONFIG_PATH",
      warnings: [],
    };
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
    return {
      config: parseJsonConfig(text, "./config.json"),
      source: "./config.json",
      warnings: [],
    };
  }
  return { config: { ...DEFAULT_CONFIG }, source: "defaults", warnings: [] };
}
