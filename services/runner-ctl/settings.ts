/**
 * The controller's settings table, row for row the key table of docs/runner-ctl.md#configuration:
 * YAML keys, their `RUNNER_CTL_*` variables (`incus.profiles` is YAML-only), the seven CLI flags,
 * defaults and per-key bounds; and {@linkcode Settings}, what the controller runs with. Rules that
 * span keys, and the credentials, are resolved by `load_settings.ts`.
 *
 * @module
 */
import {
  defineSettings,
  type SettingsShape,
  type SettingsTable,
  type SettingValues,
} from "@svc/shared/settings";
import type { GithubCredentials } from "./github/auth.ts";
import type { ConfigUrl } from "./github/config_url.ts";

/** The packaged default configuration path (optional when absent). */
export const DEFAULT_CONFIG_PATH = "/etc/runner-ctl/config.yaml";

const positive = (v: number) => v > 0 ? undefined : "must be greater than 0";
const nonEmpty = (v: string) => v === "" ? "must not be empty" : undefined;

/**
 * Text that is the same whether or not a query string is decoded: no `%` or `+` (which decoding
 * would turn into other characters), no control characters, no lone surrogates.
 */
function exactlyRepresentable(v: string): string | undefined {
  if (v === "") return "must not be empty";
  // deno-lint-ignore no-control-regex -- control characters are what this rejects
  if (/[%+\x00-\x1f\x7f]/.test(v) || !v.isWellFormed()) {
    return "must be representable exactly (no %, +, control characters or broken Unicode)";
  }
  return undefined;
}

/** The rows of {@linkcode SETTINGS}: key → type, default, flag, bounds, help. */
export const SETTING_ROWS = {
  "github.config_url": {
    type: "string",
    required: true,
    flag: false,
    help: "organization or repository URL (https)",
  },
  "github.scale_set": {
    type: "string",
    required: true,
    flag: false,
    validate: exactlyRepresentable,
    help: "scale set name, also the sole runner label",
  },
  "github.runner_group": {
    type: "string",
    default: "default",
    flag: false,
    validate: exactlyRepresentable,
    help: "runner group: default at repository scope, a named group at organization scope",
  },
  "github.message_poll_timeout": {
    type: "duration",
    default: 0,
    flag: false,
    validate: (v: number): string | undefined =>
      v === 0 || v >= 5000 ? undefined : "must be 0s or at least 5s",
    help: "client-side cut of the message long poll (0s keeps the upstream ~50s poll)",
  },
  "github.token_file": {
    type: "string",
    flag: false,
    validate: nonEmpty,
    help: "file holding a personal access token (read once at startup)",
  },
  "github.token": {
    type: "string",
    flag: false,
    file: false,
    secret: true,
    env: "RUNNER_CTL_GITHUB_TOKEN",
    help: "personal access token value (environment only)",
  },
  "github.app.client_id": {
    type: "string",
    flag: false,
    validate: nonEmpty,
    help: "GitHub App client ID",
  },
  "github.app.installation_id": {
    // int64 in the spec: carried exactly (a bigint) up to the installation-token URL.
    type: "int64",
    flag: false,
    min: 1n,
    help: "GitHub App installation ID (int64, > 0)",
  },
  "github.app.private_key_file": {
    type: "string",
    flag: false,
    validate: nonEmpty,
    help: "GitHub App private key PEM file (read once at startup)",
  },
  "incus.socket": {
    type: "string",
    default: "",
    flag: false,
    help: "Incus Unix socket (empty: $INCUS_DIR/unix.socket or /var/lib/incus/unix.socket)",
  },
  "incus.project": {
    type: "string",
    required: true,
    flag: false,
    validate: nonEmpty,
    help: "Incus project (must exist)",
  },
  "incus.image": {
    type: "string",
    required: true,
    flag: false,
    validate: nonEmpty,
    help: "image alias (followed: resolved again on an interval) or fingerprint (pinned)",
  },
  "incus.image_refresh_interval": {
    type: "duration",
    default: 300_000,
    flag: false,
    validate: positive,
    help: "how often an image alias is resolved again (and a pinned image checked)",
  },
  "incus.profiles": {
    type: "list",
    default: [],
    flag: false,
    env: false,
    validate: (v: string[]): string | undefined =>
      v.some((p) => p === "") ? "must not hold empty entries" : undefined,
    help: "profiles whose config and devices are pinned at preflight (YAML only)",
  },
  "incus.owner": {
    type: "string",
    required: true,
    flag: false,
    validate: nonEmpty,
    help: "owner tag written to every managed instance (cleanup selector)",
  },
  "incus.bootstrap_timeout": {
    type: "duration",
    default: 300_000,
    flag: false,
    validate: positive,
    help: "time a runner VM has to report Ready",
  },
  "incus.diagnostics_dir": {
    type: "string",
    default: "",
    flag: false,
    help: "directory for serial console captures of terminal runners (empty: off)",
  },
  "job_proof.host_id": {
    type: "string",
    default: "",
    flag: false,
    help: "stable host identity recorded in every job proof",
  },
  "job_proof.signing_key_file": {
    type: "string",
    default: "",
    flag: false,
    help: "PKCS#8 PEM Ed25519 private key file of at most 16 KiB",
  },
  "capacity.min_runners": {
    type: "int",
    default: 0,
    min: 0,
    flag: "min-runners",
    help: "runners kept warm",
  },
  "capacity.max_runners": {
    type: "int",
    default: 1,
    min: 0,
    flag: "max-runners",
    help: "runners at most (at least min_runners)",
  },
  "concurrency.incus_operations": {
    type: "int",
    default: 2,
    min: 1,
    flag: "incus-operations",
    help: "Incus operations in parallel",
  },
  "timeouts.incus_operation": {
    type: "duration",
    default: 300_000,
    flag: "operation-timeout",
    validate: positive,
    help: "time limit of each Incus operation",
  },
  "timeouts.shutdown": {
    type: "duration",
    default: 30_000,
    flag: "shutdown-timeout",
    validate: positive,
    help: "drain time on SIGTERM (the whole shutdown takes at most twice this)",
  },
  "retry.initial": {
    type: "duration",
    default: 1000,
    flag: false,
    validate: positive,
    help: "first retry backoff",
  },
  "retry.maximum": {
    type: "duration",
    default: 30_000,
    flag: false,
    validate: positive,
    help: "largest retry backoff (at least retry.initial)",
  },
  "reconcile_interval": {
    type: "duration",
    default: 1000,
    flag: "reconcile-interval",
    validate: positive,
    help: "reconcile period",
  },
} as const satisfies SettingsShape;

/** The settings table: flag > `RUNNER_CTL_*` variable > YAML file > default, per key. */
export const SETTINGS: SettingsTable<typeof SETTING_ROWS> = defineSettings({
  prefix: "RUNNER_CTL",
  configFile: { flag: "config", env: false, defaultPath: DEFAULT_CONFIG_PATH },
  settings: SETTING_ROWS,
});

/** The resolved settings the controller runs with (`loadSettings`). */
export interface Settings {
  /** Every key's value after flag > variable > file > default, by its dotted name. */
  values: SettingValues<typeof SETTING_ROWS>;
  /** `github.config_url`, validated and mapped to its scope and API base. */
  configUrl: ConfigUrl;
  /** The one credential source, its secrets read once and trimmed. */
  credentials: GithubCredentials;
  /** Where the configuration file came from, if one was read. */
  configFile?: string;
}
