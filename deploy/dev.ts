// deno-lint-ignore-file no-console -- a command-line tool talks to its user on the console
/**
 * `deno task dev`: runs every service that exists, each on its own port with its embedded default
 * backing, with its output prefixed by its name. Ctrl-C stops them all gracefully.
 *
 * @module
 */
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
}

function run(svc: ServiceDeployment, args: string[]): Deno.ChildProcess {
  const { entry, permissions } = svc.dev ?? svc;
  const v8 = !svc.dev && svc.v8Flags?.length ? [`--v8-flags=${svc.v8Flags.join(",")}`] : [];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, ...v8, entry, ...args],
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  pipe(svc.name, child.stdout, Deno.stdout);
  pipe(svc.name, child.stderr, Deno.stderr);
  return child;
}

async function main() {
  const services = existingServices(root);
  if (services.length === 0) {
    console.error("Cannot start: no service exists yet in this checkout");
    Deno.exit(1);
  }
  for (const svc of services) {
    for (const setup of svc.devSetup) {
      const status = await run(svc, setup).status;
      if (!status.success) {
        console.error(`Cannot start ${svc.name}: "${setup.join(" ")}" failed`);
        Deno.exit(1);
      }
    }
  }
  const children = services.map((svc) => run(svc, svc.devArgs));
  console.log(`dev: started ${services.map((s) => s.name).join(", ")}; Ctrl-C stops them all`);
  const stop = () => {
    for (const c of children) {
      try {
        c.kill("SIGTERM");
      } catch { /* already gone */ }
    }
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  const codes = await Promise.all(children.map((c) => c.status.then((s) => s.code)));
  Deno.exit(codes.find((c) => c !== 0) ?? 0);
}

if (import.meta.main) await main();
