/**
 * The todo-api key `deno task dev` hands to mcp-server, so the demo's `todos.*` capabilities work
 * on a fresh clone with no manual step. It is made with todo-api's own `keys` command against the
 * embedded database before `serve` takes that database's lock, and kept in a file under `./.data`
 * so later runs reuse it while `keys list` still shows it active (one key, not one per start).
 *
 * @module
 */

/** What one run of the todo-api command line printed. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@linkcode provisionTodoKey}. */
export interface ProvisionOptions {
  /** Runs `services/todo-api/main.ts <args>` with todo-api's permissions (injected in tests). */
  cli: (args: string[]) => Promise<CliResult>;
  /** Where the key and its id are kept between runs (mode 0600). */
  file: string;
  /** The subject the key acts as in todo-api. @default {"mcp-demo"} */
  subject?: string;
}

/** The key, its id and whether this run created it. */
export interface ProvisionedKey {
  key: string;
  id: string;
  created: boolean;
}

interface Stored {
  id: string;
  key: string;
}

/** Reuses the stored key when todo-api lists it as active, otherwise creates and stores one. */
export async function provisionTodoKey(options: ProvisionOptions): Promise<ProvisionedKey> {
  const stored = await readStored(options.file);
  if (stored) {
    const listed = await options.cli(["keys", "list"]);
    if (listed.code !== 0) {
      throw new Error(`Cannot list todo-api keys: ${lastLine(listed.stderr)}`);
    }
    // keys list: ID, SUBJECT, ROLES, CREATED, STATUS, DIGEST separated by tabs.
    const active = listed.stdout.split("\n").some((line) => {
      const cols = line.split("\t");
      return cols[0] === stored.id && cols[4] === "active";
    });
    if (active) return { ...stored, created: false };
  }
  const subject = options.subject ?? "mcp-demo";
  const made = await options.cli(["keys", "create", "--subject", subject, "--role", "user"]);
  const key = made.stdout.trim();
  // The id is only on stderr: "created key <id> for <subject> (<roles>); …".
  const id = /^created key (\S+) for /m.exec(made.stderr)?.[1];
  if (made.code !== 0 || !/^\S+$/.test(key) || !id) {
    throw new Error(`Cannot create a todo-api key: ${lastLine(made.stderr) || "no key printed"}`);
  }
  await Deno.mkdir(dirname(options.file), { recursive: true });
  await Deno.writeTextFile(options.file, JSON.stringify({ id, key } satisfies Stored) + "\n", {
    mode: 0o600,
  });
  return { key, id, created: true };
}

async function readStored(file: string): Promise<Stored | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
  try {
    const value = JSON.parse(text);
    if (typeof value?.id === "string" && typeof value?.key === "string") return value;
  } catch { /* unreadable: replaced by a new key below */ }
  return undefined;
}

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "." : path.slice(0, i);
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1) ?? "";
}
