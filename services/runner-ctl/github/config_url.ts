/**
 * `github.config_url`: the organization or repository URL a scale set belongs to, validated the way
 * docs/runner-ctl.md#configuration says, and mapped to its scope and REST API base (hosted →
 * `api.<host>`, GitHub Enterprise Server → `<origin>/api/v3`).
 *
 * @module
 */

/** Scope and API base of a valid config URL. */
export interface ConfigUrl {
  /** The URL exactly as configured (sent as-is to `runner-registration`). */
  url: string;
  /** Whether the scale set belongs to an organization or to one repository. */
  scope: "org" | "repo";
  /** Organization or repository owner. */
  owner: string;
  /** Repository name, for `scope: "repo"`. */
  repo?: string;
  /** github.com (or a GHE.com tenant) rather than GitHub Enterprise Server. */
  hosted: boolean;
  /** REST API base without a trailing slash. */
  apiBase: string;
  /** Path (below `apiBase`) of the registration-token endpoint of this scope. */
  registrationTokenPath: string;
}

/** Thrown with a reason that never repeats the URL (it may carry a typo'd secret). */
export class ConfigUrlError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "ConfigUrlError";
  }
}

const SEGMENT = /^[A-Za-z0-9._-]+$/;

/** True for github.com and GitHub Enterprise Cloud with data residency (`*.ghe.com`). */
export function isHostedHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === "github.com" || h === "www.github.com" || h === "github.localhost" ||
    h.endsWith(".ghe.com");
}

/**
 * Parses and validates `github.config_url`.
 *
 * @throws {ConfigUrlError} when the URL is not an absolute HTTPS org or repository URL.
 */
export function parseConfigUrl(text: string): ConfigUrl {
  let u: URL;
  // deno-lint-ignore no-control-regex -- control characters are what this rejects
  if (/[\s\x00-\x1f\x7f]/.test(text)) throw new ConfigUrlError("must not contain whitespace");
  try {
    u = new URL(text);
  } catch {
    throw new ConfigUrlError("must be an absolute URL");
  }
  if (u.protocol !== "https:") throw new ConfigUrlError("must use https");
  // The URL parser reads "\" as "/", but the text is sent to GitHub as written: another shape.
  if (text.includes("\\")) throw new ConfigUrlError("must name an organization or a repository");
  if (u.username || u.password || /^https:\/\/[^/]*@/i.test(text)) {
    throw new ConfigUrlError("must not contain user information");
  }
  if (u.search || text.includes("?")) throw new ConfigUrlError("must not contain a query");
  if (u.hash || text.includes("#")) throw new ConfigUrlError("must not contain a fragment");
  if (u.hostname.endsWith(".")) throw new ConfigUrlError("must not end its host with a dot");
  const rawPort = /^https:\/\/[^/]*?(?::(\d*))?(?:\/|$)/i.exec(text)?.[1];
  const hosted = isHostedHost(u.hostname);
  if (hosted && rawPort !== undefined) throw new ConfigUrlError("hosted domains take no port");
  if (rawPort !== undefined && (rawPort === "" || Number(rawPort) < 1 || Number(rawPort) > 65535)) {
    throw new ConfigUrlError("must have a valid port");
  }
  // The path shape is checked on the text as written, which is what GitHub receives: the URL
  // parser removes "." and ".." segments (also written %2e%2e) before `pathname` shows them, so
  // https://github.com/x/../octo-org would pass as /octo-org.
  const rawPath = /^https:\/\/[^/]*(\/.*)?$/i.exec(text)?.[1] ?? "";
  if (rawPath.includes("%") || u.pathname.includes("%")) {
    throw new ConfigUrlError("must not contain escaped path segments");
  }
  const segments = rawPath.replace(/\/$/, "").split("/").slice(1);
  if (segments.length < 1 || segments.length > 2 || segments.some((s) => !SEGMENT.test(s))) {
    throw new ConfigUrlError("must name an organization or a repository");
  }
  if (segments.some((s) => s === "." || s === "..")) {
    throw new ConfigUrlError("must name an organization or a repository");
  }
  if (segments[0].toLowerCase() === "enterprises") {
    throw new ConfigUrlError("enterprise URLs are not supported");
  }
  const host = u.host.toLowerCase();
  const apiBase = hosted
    ? `https://api.${host === "www.github.com" ? "github.com" : host}`
    : `https://${host}/api/v3`;
  const [owner, repo] = segments;
  return {
    url: text,
    scope: repo === undefined ? "org" : "repo",
    owner,
    repo,
    hosted,
    apiBase,
    registrationTokenPath: repo === undefined
      ? `/orgs/${owner}/actions/runners/registration-token`
      : `/repos/${owner}/${repo}/actions/runners/registration-token`,
  };
}
