/**
 * The shell blocks of every README in the tree (```sh, ```bash, ```shell, ```console fences) and
 * the mark each must carry, an HTML comment on the nearest non-blank line above its fence:
 *
 * - `<!-- readme-test: run [NAME=VALUE …] -->`: each command of the block runs, as written, from
 *   the repository root with `bash -euo pipefail -c`, and must exit 0.
 * - `<!-- readme-test: run serve=N ready="TEXT" [NAME=VALUE …] -->`: command N (1-based) is
 *   long-running (a server): it starts first and is ready once its output shows TEXT; the block's
 *   other commands then run while it serves; then it is stopped like Ctrl-C (SIGINT to its
 *   process group) and must exit 0.
 * - `<!-- readme-test: tested-by PATH -->`: the test at PATH runs the block verbatim (where it
 *   needs what the runner cannot give, e.g. the fixed ports of `deno task dev`).
 * - `<!-- readme-test: not-run REASON -->`: not runnable by a test here, and why.
 *
 * Placeholders in `NAME=VALUE` environment settings: `{port}` becomes a free loopback port (a
 * fresh one at each use), `{scratch}` a directory under `./.data` removed afterwards. A command is
 * a line, with `\` continuations joined; blank lines and lines starting with `#` separate
 * commands. `readme_blocks_test.ts` fails on any block without a valid mark.
 *
 * An MCP client configuration (a ```json fence holding `"mcpServers"`) is run by the test its
 * `tested-by` mark names, which must produce the capabilities the text around it describes:
 * {@linkcode clientConfigBlocks}.
 *
 * @module
 */

/** Repository root. */
export const ROOT = new URL("../../", import.meta.url).pathname;

/** One shell block of a README. */
export interface ReadmeBlock {
  /** The README, relative to the root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
  commands: string[];
  mark?: Mark;
}

/** A block's parsed mark. */
export type Mark =
  | { kind: "run"; env: Record<string, string>; serve?: number; ready?: string }
  | { kind: "tested-by"; path: string }
  | { kind: "not-run"; reason: string }
  | { kind: "invalid"; text: string };

const SHELL = new Set(["sh", "bash", "shell", "console"]);
const SKIP_DIRS = new Set(["node_modules", ".data", "dist", "cov", ".git"]);

/** Every README.md under the root (outside dependencies and generated directories). */
async function readmeFiles(dir = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}${dir}` || ".")) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory && !SKIP_DIRS.has(entry.name)) found.push(...await readmeFiles(path));
    else if (entry.isFile && entry.name === "README.md") found.push(path);
  }
  return found.sort();
}

/** The shell blocks of one README's text. */
export function shellBlocks(file: string, markdown: string): ReadmeBlock[] {
  return fencedBlocks(file, markdown, (lang) => SHELL.has(lang));
}

/**
 * The MCP client configurations of one README's text: ```json blocks holding `"mcpServers"`
 * (`commands` is empty: the marked test reads `text`).
 */
export function clientConfigBlocks(file: string, markdown: string): ReadmeBlock[] {
  return fencedBlocks(file, markdown, (lang) => lang === "json")
    .filter((b) => b.text.includes('"mcpServers"'))
    .map((b) => ({ ...b, commands: [] }));
}

/** Every MCP client configuration of every README. */
export async function allClientConfigBlocks(): Promise<ReadmeBlock[]> {
  const blocks: ReadmeBlock[] = [];
  for (const file of await readmeFiles()) {
    blocks.push(...clientConfigBlocks(file, await Deno.readTextFile(`${ROOT}${file}`)));
  }
  return blocks;
}

function fencedBlocks(
  file: string,
  markdown: string,
  wanted: (lang: string) => boolean,
): ReadmeBlock[] {
  const lines = markdown.split("\n");
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) break;
    if (wanted(open[1])) {
      const text = lines.slice(i + 1, end).join("\n");
      // The mark is the nearest non-blank line above (`deno fmt` puts a blank line after it).
      let k = i - 1;
      while (k >= 0 && lines[k].trim() === "") k--;
      const before = k >= 0 ? lines[k] : "";
      blocks.push({
        file,
        line: i + 1,
        text,
        commands: commandsOf(text),
        mark: parseMark(before),
      });
    }
    i = end;
  }
  return blocks;
}

/** The commands of a block: lines with `\` continuations joined, no blanks or comment lines. */
export function commandsOf(text: string): string[] {
  const commands: string[] = [];
  let current = "";
  for (const line of text.split("\n")) {
    if (current === "" && (line.trim() === "" || line.trimStart().startsWith("#"))) continue;
    current += (current ? "\n" : "") + line;
    if (!line.endsWith("\\")) {
      commands.push(current);
      current = "";
    }
  }
  if (current) commands.push(current);
  return commands;
}

/** The mark in an HTML comment line, if the line is one. */
export function parseMark(line: string): Mark | undefined {
  const m = /^<!--\s*readme-test:\s*(.*?)\s*-->\s*$/.exec(line);
  if (!m) return undefined;
  const [kind, ...rest] = m[1].split(/\s+/);
  const tail = m[1].slice(kind.length).trim();
  if (kind === "not-run" && tail) return { kind, reason: tail };
  if (kind === "tested-by" && rest.length === 1) return { kind, path: rest[0] };
  if (kind !== "run") return { kind: "invalid", text: m[1] };
  const env: Record<string, string> = {};
  let serve: number | undefined;
  let ready: string | undefined;
  const tokens = [...tail.matchAll(/(\S+?)=("[^"]*"|\S+)|(\S+)/g)];
  for (const t of tokens) {
    if (t[3] !== undefined) return { kind: "invalid", text: m[1] };
    const value = t[2].startsWith('"') ? t[2].slice(1, -1) : t[2];
    if (t[1] === "serve") serve = Number(value);
    else if (t[1] === "ready") ready = value;
    else if (/^[A-Z_][A-Z0-9_]*$/.test(t[1])) env[t[1]] = value;
    else return { kind: "invalid", text: m[1] };
  }
  if ((serve === undefined) !== (ready === undefined)) return { kind: "invalid", text: m[1] };
  if (serve !== undefined && !(Number.isInteger(serve) && serve >= 1)) {
    return { kind: "invalid", text: m[1] };
  }
  return { kind: "run", env, serve, ready };
}

/** Every shell block of every README. */
export async function allBlocks(): Promise<ReadmeBlock[]> {
  const blocks: ReadmeBlock[] = [];
  for (const file of await readmeFiles()) {
    blocks.push(...shellBlocks(file, await Deno.readTextFile(`${ROOT}${file}`)));
  }
  return blocks;
}

/** A free loopback port (bound, then released). */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The output of a finished command. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one command as written with bash from the root. */
export async function runCommand(
  command: string,
  env: Record<string, string>,
  cwd = ROOT,
): Promise<Ran> {
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", command],
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** A long-running command in its own process group, with its output recorded. */
export interface Served {
  output: string[];
  /** Resolves once the output shows `text`; rejects if the command ends first. */
  ready(text: string): Promise<void>;
  /** Ctrl-C (SIGINT to the process group), then its exit status. */
  stop(): Promise<Deno.CommandStatus>;
  status: Promise<Deno.CommandStatus>;
}

/** Starts one command as written with bash from the root, in its own process group. */
function serveCommand(
  command: string,
  env: Record<string, string>,
  cwd = ROOT,
): Served {
  const child = new Deno.Command("setsid", {
    args: ["bash", "-c", command],
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output: string[] = [];
  const waiters = new Set<() => void>();
  const read = async (stream: ReadableStream<Uint8Array>) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      output.push(text);
      for (const w of [...waiters]) w();
    }
  };
  const drained = Promise.all([read(child.stdout), read(child.stderr)]);
  const status = child.status;
  return {
    output,
    status,
    ready(text) {
      return new Promise((resolve, reject) => {
        // A guard against a hang, not a wait: readiness comes from the output.
        const guard = setTimeout(() => {
          if (waiters.delete(check)) {
            reject(new Error(`no "${text}" within 5 min:\n${output.join("")}`));
          }
        }, 300_000);
        const check = () => {
          if (output.join("").includes(text)) {
            waiters.delete(check);
            clearTimeout(guard);
            resolve();
          }
        };
        waiters.add(check);
        check();
        status.then((s) => {
          if (waiters.delete(check)) {
            clearTimeout(guard);
            reject(new Error(`ended (${s.code}) before "${text}":\n${output.join("")}`));
          }
        });
      });
    },
    async stop() {
      try {
        Deno.kill(-child.pid, "SIGINT");
      } catch { /* already gone */ }
      const s = await status;
      await drained;
      return s;
    },
  };
}

/** `env` of a mark with its placeholders filled; `scratch` is where `{scratch}` points. */
function fillEnv(env: Record<string, string>, scratch: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [
      k,
      v.replaceAll("{scratch}", scratch).replace(/\{port\}/g, () => String(freePort())),
    ]),
  );
}

/** How {@linkcode runBlock} runs a block; by default what its `run` mark says. */
export interface RunOptions {
  /** Where the commands run (a fresh checkout, say). @default {ROOT} */
  cwd?: string;
  env?: Record<string, string>;
  serve?: number;
  ready?: string;
}

/**
 * Runs a block: its server first (if any), then every other command; throws on a failure.
 * Returns what each non-server command printed, in order.
 */
export async function runBlock(block: ReadmeBlock, options: RunOptions = {}): Promise<Ran[]> {
  const mark = block.mark?.kind === "run" ? block.mark : undefined;
  const cwd = options.cwd ?? ROOT;
  const serve = options.serve ?? mark?.serve;
  const ready = options.ready ?? mark?.ready;
  const scratch = `./.data/readme-test-${crypto.randomUUID()}`;
  const env = fillEnv(options.env ?? mark?.env ?? {}, scratch);
  let served: Served | undefined;
  const results: Ran[] = [];
  try {
    if (serve !== undefined) {
      const command = block.commands[serve - 1];
      if (!command) throw new Error(`${where(block)}: no command ${serve}`);
      served = serveCommand(command, env, cwd);
      await served.ready(ready ?? "");
    }
    for (const [i, command] of block.commands.entries()) {
      if (i + 1 === serve) continue;
      const ran = await runCommand(command, env, cwd);
      if (ran.code !== 0) {
        throw new Error(`${where(block)}: \`${command}\` exited ${ran.code}:\n${ran.stderr}`);
      }
      results.push(ran);
    }
    if (served) {
      const s = await served.stop();
      served = undefined;
      if (s.code !== 0) throw new Error(`${where(block)}: the server exited ${s.code}`);
    }
  } finally {
    await served?.stop();
    await Deno.remove(`${cwd}/${scratch}`, { recursive: true }).catch(() => {});
  }
  return results;
}

/** `file:line` of a block, for messages. */
export function where(block: ReadmeBlock): string {
  return `${block.file}:${block.line}`;
}
