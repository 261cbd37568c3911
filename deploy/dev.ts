// deno-lint-ignore-file no-console -- a command-line tool talks to its user on the console
/**
 * `deno task dev`: runs every service that exists, each on its own port with its embedded default
 * backing and its deployed permissions, with its output prefixed by its name. Before the services
 * start it runs their set-up commands (todo-api's migrations) and makes the todo-api keys its
 * hints need (`dev/todo_key.ts`: the one the mcp-server demo's `todos.*` use, and an admin key the
 * table's key command uses); then it prints one table of where each service is and what to open,
 * every command in it runnable as printed while dev runs (`dev_test.ts` runs them). When a service
 * exits, dev says so, stops the others and exits non-zero (`dev/supervise.ts`); Ctrl-C stops them
 * all gracefully.
 *
 * @module
 */
import { ADMIN_KEY_FILE, type KeySpec, MCP_KEY_FILE, provisionTodoKeys } from "./dev/todo_key.ts";
import { supervise } from "./dev/supervise.ts";
import { existingServices, type ServiceDeployment } from "./services.ts";

const root = new URL("../", import.meta.url);
const enc = new TextEncoder();

async function pipe(name: string, stream: ReadableStream<Uint8Array>, out: typeof Deno.stdout) {
  let pending = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    const lines = (pending + text).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) out.writeSync(enc.encode(`${name.padEnd(10)} | ${line}\n`));
  }
  if (pending) out.writeSync(enc.encode(`${name.padEnd(10)} | ${pending}\n`));
}

function command(svc: ServiceDeployment, args: string[], env: Record<string, string> = {}) {
  const { entry, permissions } = svc.dev ?? svc;
  const v8 = !svc.dev && svc.v8Flags?.length ? [`--v8-flags=${svc.v8Flags.join(",")}`] : [];
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, ...v8, entry, ...args],
    cwd: root,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

function run(svc: ServiceDeployment, args: string[], env?: Record<string, string>) {
  const child = command(svc, args, env).spawn();
  const drained = Promise.all([
    pipe(svc.name, child.stdout, Deno.stdout),
    pipe(svc.name, child.stderr, Deno.stderr),
  ]);
  return { child, drained };
}

/** The todo-api command line with todo-api's own permissions, its output captured. */
function todoCli(svc: ServiceDeployment) {
  return async (args: string[]) => {
    const out = await command(svc, args).output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  };
}

/** The start-up table: service, URL, what to open. */
function devTable(services: readonly ServiceDeployment[]): string {
  const rows = [
    ["SERVICE", "URL", "OPEN"],
    ...services.map((s) => [s.name, s.devInfo.url, s.devInfo.open]),
  ];
  const widths = [0, 1].map((c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => `${r[0].padEnd(widths[0])}  ${r[1].padEnd(widths[1])}  ${r[2]}`)
    .join("\n");
}

async function main(): Promise<number> {
  const services = existingServices(root);
  if (services.length === 0) {
    console.error("Cannot start: no service exists yet in this checkout");
    return 1;
  }
  for (const svc of services) {
    for (const setup of svc.devSetup) {
      const { child, drained } = run(svc, setup);
      const status = await child.status;
      await drained;
      if (!status.success) {
        console.error(`Cannot start ${svc.name}: "${setup.join(" ")}" failed`);
        return 1;
      }
    }
  }
  const envs: Record<string, Record<string, string>> = {};
  const todoApi = services.find((s) => s.name === "todo-api");
  if (todoApi) {
    // The admin key the table's key command reads; mcp-server's key unless one is given.
    const admin: KeySpec = { file: ADMIN_KEY_FILE, subject: "dev-admin", roles: ["admin"] };
    const mcp: KeySpec = { file: MCP_KEY_FILE, subject: "mcp-demo", roles: ["user"] };
    const forMcp = services.some((s) => s.name === "mcp-server");
    const given = forMcp && Boolean(Deno.env.get("MCP_TODO_API_KEY"));
    if (given) console.log("dev: mcp-server uses the todo-api key in MCP_TODO_API_KEY");
    const wanted = forMcp && !given ? [admin, mcp] : [admin];
    try {
      const [adminKey, mcpKey] = await provisionTodoKeys({ cli: todoCli(todoApi), keys: wanted });
      const how = (k: { created: boolean }) => k.created ? "created now" : "reused";
      console.log(
        `dev: todo-api admin key ${adminKey.id} (subject dev-admin, ${how(adminKey)}; kept in ` +
          `${ADMIN_KEY_FILE}, which the table's key command reads)`,
      );
      if (mcpKey) {
        envs["mcp-server"] = { MCP_TODO_API_KEY: mcpKey.key };
        console.log(
          `dev: mcp-server's todos.* use todo-api key ${mcpKey.id} (subject mcp-demo, ` +
            `${how(mcpKey)}; kept in ${MCP_KEY_FILE})`,
        );
      }
    } catch (err) {
      console.error(`Cannot start todo-api: ${(err as Error).message}`);
      return 1;
    }
  }
  console.log(devTable(services));
  let requestStop: () => void = () => {};
  const stopRequested = new Promise<void>((resolve) => requestStop = resolve);
  Deno.addSignalListener("SIGINT", () => requestStop());
  Deno.addSignalListener("SIGTERM", () => requestStop());
  const started = services.map((svc) => ({
    name: svc.name,
    ...run(svc, svc.devArgs, envs[svc.name]),
  }));
  console.log(`dev: started ${services.map((s) => s.name).join(", ")}; Ctrl-C stops them all`);
  return await supervise(started, { report: (line) => console.error(line), stopRequested });
}

if (import.meta.main) Deno.exit(await main());
