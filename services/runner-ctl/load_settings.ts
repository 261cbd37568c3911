/**
 * Loads the controller's settings: the table (flag > env > YAML > default per key), then the
 * rules that span keys (config URL shape, runner group by scope, min ≤ max, initial ≤ maximum,
 * job proof both-or-neither) and exactly one credential source, whose secrets are read once,
 * trimmed and never shown. Every error names the key, never the value.
 *
 * @module
 */
import type { KeyObject } from "node:crypto";
import { type EnvLookup, SettingsError } from "@svc/shared/settings";
import type { GithubCredentials } from "./github/auth.ts";
import { type ConfigUrl, ConfigUrlError, parseConfigUrl } from "./github/config_url.ts";
import { SETTINGS, type Settings } from "./settings.ts";

/** Inputs of {@linkcode loadSettings}. */
export interface LoadSettingsInput {
  /** Command-line arguments after the command name. */
  args: readonly string[];
  /** Environment lookup (`RUNNER_CTL_*` and the credential files' variables). */
  env: EnvLookup;
  /** Reads the configuration and secret files. @default Deno.readTextFile */
  readTextFile?: (path: string) => Promise<string>;
}

const fail = (key: string, why: string) =>
  new SettingsError(key, `Cannot start: setting "${key}" ${why}`);

async function readSecretFile(
  key: string,
  path: string,
  read: (p: string) => Promise<string>,
): Promise<string> {
  let text: string;
  try {
    text = await read(path);
  } catch (err) {
    throw fail(key, `names a file that cannot be read (${(err as Error).name})`);
  }
  const trimmed = text.trim();
  if (trimmed === "") throw fail(key, "names an empty file");
  return trimmed;
}

async function credentialsOf(
  v: Settings["values"],
  read: (p: string) => Promise<string>,
): Promise<GithubCredentials> {
  const app = [
    v["github.app.client_id"],
    v["github.app.installation_id"],
    v["github.app.private_key_file"],
  ];
  const appSet = app.some((x) => x !== undefined);
  const token = v["github.token"]?.trim();
  const sources = [
    appSet && "github.app",
    v["github.token_file"] !== undefined && "github.token_file",
    v["github.token"] !== undefined && "RUNNER_CTL_GITHUB_TOKEN",
  ].filter(Boolean);
  if (sources.length === 0) {
    throw new SettingsError(
      "github",
      "Cannot start: no GitHub credential is configured (set github.app.*, github.token_file " +
        "or RUNNER_CTL_GITHUB_TOKEN)",
    );
  }
  if (sources.length > 1) {
    throw new SettingsError(
      "github",
      `Cannot start: more than one GitHub credential source is configured (${
        sources.join(", ")
      }); configure exactly one`,
    );
  }
  if (appSet) {
    const missing = [
      "github.app.client_id",
      "github.app.installation_id",
      "github.app.private_key_file",
    ]
      .filter((_, i) => app[i] === undefined);
    if (missing.length) throw fail(missing[0], "is required when GitHub App credentials are used");
    const pem = await readSecretFile(
      "github.app.private_key_file",
      v["github.app.private_key_file"]!,
      read,
    );
    // node:crypto: loaded only when App credentials are configured.
    const { loadAppKey } = await import("./github/app_jwt.ts");
    let key: KeyObject;
    try {
      key = loadAppKey(pem);
    } catch {
      throw fail("github.app.private_key_file", "names a file without an RSA private key in PEM");
    }
    return {
      kind: "app",
      clientId: v["github.app.client_id"]!,
      installationId: v["github.app.installation_id"]!,
      key,
    };
  }
  if (v["github.token_file"] !== undefined) {
    return {
      kind: "token",
      token: await readSecretFile("github.token_file", v["github.token_file"], read),
    };
  }
  if (!token) throw fail("github.token", "(RUNNER_CTL_GITHUB_TOKEN) is empty");
  return { kind: "token", token };
}

/**
 * Loads and validates the settings.
 *
 * @throws {SettingsError} naming the key at fault, never its value.
 */
export async function loadSettings(input: LoadSettingsInput): Promise<Settings> {
  const read = input.readTextFile ?? ((p: string) => Deno.readTextFile(p));
  const r = await SETTINGS.load({ args: input.args, env: input.env, readTextFile: read });
  if (r.positionals.length) {
    throw new SettingsError("command", "Cannot start: unexpected arguments (see --help)");
  }
  const v = r.values;
  let configUrl: ConfigUrl;
  try {
    configUrl = parseConfigUrl(v["github.config_url"]);
  } catch (err) {
    if (err instanceof ConfigUrlError) throw fail("github.config_url", err.message);
    throw err;
  }
  const group = v["github.runner_group"];
  if (configUrl.scope === "repo" && group !== "default") {
    throw fail("github.runner_group", "must be default at repository scope");
  }
  if (configUrl.scope === "org" && group === "default") {
    throw fail("github.runner_group", "must name a non-default runner group at organization scope");
  }
  if (v["capacity.max_runners"] < v["capacity.min_runners"]) {
    throw fail("capacity.max_runners", "must be at least capacity.min_runners");
  }
  if (v["retry.maximum"] < v["retry.initial"]) {
    throw fail("retry.maximum", "must be at least retry.initial");
  }
  const hostId = v["job_proof.host_id"];
  const keyFile = v["job_proof.signing_key_file"];
  if (hostId !== "" && keyFile === "") {
    throw fail("job_proof.signing_key_file", "is required when job_proof.host_id is set");
  }
  if (keyFile !== "" && hostId === "") {
    throw fail("job_proof.host_id", "is required when job_proof.signing_key_file is set");
  }
  const credentials = await credentialsOf(v, read);
  return { values: v, configUrl, credentials, configFile: r.configFile };
}
