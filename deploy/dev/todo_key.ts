/**
 * The todo-api keys `deno task dev` makes before the services start, so that everything it
 * prints works on a fresh clone with no manual step: the key mcp-server's demo `todos.*` use, and
 * an admin key for the table's hint, which makes more keys through the running todo-api
 * (`TODOAPI_API_KEY=$(cat <file>) deno task keys create --url <todo-api> …`): while `serve` runs,
 * it holds the embedded database's lock, so `keys` can only go through its API then. They are made
 * with todo-api's own `keys` command against the embedded database before `serve` takes that lock,
 * each kept alone in a file under `./.data` (mode 0600, so `$(cat file)` is the key), and reused
 * by later runs while `keys list` shows it active (found by its digest's prefix, which the list
 * shows): one key of each, not one per start.
 *
 * @module
 */

/** What one run of the todo-api command line printed. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One key dev wants. */
export interface KeySpec {
  /** Where the key is kept between runs (mode 0600), the key alone. */
  file: string;
  /** The subject the key acts as in todo-api. */
  subject: string;
  /** Its roles (`user`, `admin`). */
  roles: string[];
}

/** Options of {@linkcode provisionTodoKeys}. */
export interface ProvisionOptions {
  /** Runs `services/todo-api/main.ts <args>` with todo-api's permissions (injected in tests). */
  cli: (args: string[]) => Promise<CliResult>;
  /** The keys wanted, in order. */
  keys: readonly KeySpec[];
}

/** A key, its id and whether this run created it. */
export interface ProvisionedKey {
  key: string;
  id: string;
  created: boolean;
}

/** Where dev keeps the key mcp-server's `todos.*` use (under the granted ./.data). */
export const MCP_KEY_FILE = ".data/dev/mcp-server-todo-api.key";
/** Where dev keeps the todo-api admin key its start-up table's hint reads. */
export const ADMIN_KEY_FILE = ".data/dev/todo-api-admin.key";

/**
 * Each wanted key: the stored one when todo-api lists it as active, otherwise a new one, stored.
 * One `keys list` for all of them (none when no file exists yet).
 */
export async function provisionTodoKeys(options: ProvisionOptions): Promise<ProvisionedKey[]> {
  const stored = await Promise.all(options.keys.map((k) => readStored(k.file)));
  let active = new Map<string, string>();
  if (stored.some((k) => k !== undefined)) {
    const listed = await options.cli(["keys", "list"]);
    if (listed.code !== 0) {
      throw new Error(`Cannot list todo-api keys: ${lastLine(listed.stderr)}`);
    }
    active = activeByDigest(listed.stdout);
  }
  const result: ProvisionedKey[] = [];
  for (const [i, spec] of options.keys.entries()) {
    const key = stored[i];
    const id = key === undefined ? undefined : active.get((await sha256Hex(key)).slice(0, 12));
    result.push(id ? { key: key!, id, created: false } : await create(options.cli, spec));
  }
  return result;
}

async function create(cli: ProvisionOptions["cli"], spec: KeySpec): Promise<ProvisionedKey> {
  const made = await cli([
    "keys",
    "create",
    "--subject",
    spec.subject,
    "--role",
    spec.roles.join(","),
  ]);
  const key = made.stdout.trim();
  // The id is only on stderr: "created key <id> for <subject> (<roles>); …".
  const id = /^created key (\S+) for /m.exec(made.stderr)?.[1];
  if (made.code !== 0 || !/^\S+$/.test(key) || !id) {
    throw new Error(`Cannot create a todo-api key: ${lastLine(made.stderr) || "no key printed"}`);
  }
  await Deno.mkdir(dirname(spec.file), { recursive: true });
  await Deno.writeTextFile(spec.file, key + "\n", { mode: 0o600 });
  return { key, id, created: true };
}

/**
 * `keys list` (ID, SUBJECT, ROLES, CREATED, STATUS, DIGEST separated by tabs; the digest as its
 * first 12 hex characters and `…`): the ids of the active keys by digest prefix.
 */
function activeByDigest(table: string): Map<string, string> {
  const active = new Map<string, string>();
  for (const line of table.split("\n")) {
    const cols = line.split("\t");
    if (cols[4] === "active") active.set(cols[5].replace(/…$/, ""), cols[0]);
  }
  return active;
}

async function readStored(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
  const key = text.trim();
  return /^\S+$/.test(key) ? key : undefined; // anything else: replaced by a new key
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "." : path.slice(0, i);
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1) ?? "";
}
