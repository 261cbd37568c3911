/** Helpers of the todo-api end-to-end tests: the real `main.ts`, a fresh database per test. */
import { createTestDatabase, type TestDatabase } from "../../services/todo-api/_test_support.ts";

export const ENTRY = new URL("../../services/todo-api/main.ts", import.meta.url).pathname;
export const LISTEN = ["--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"];

export async function run(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ENTRY, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

export interface Target {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export async function target(backend: "pglite" | "postgres"): Promise<Target> {
  if (backend === "pglite") {
    const dir = await Deno.makeTempDir({ prefix: "todo_api_e2e_" });
    return {
      env: { TODOAPI_DATA_DIR: `${dir}/db`, TODOAPI_DATABASE_URL: "" },
      cleanup: () => Deno.remove(dir, { recursive: true }),
    };
  }
  const test: TestDatabase = await createTestDatabase("postgres");
  await test.db.close();
  return { env: { TODOAPI_DATABASE_URL: test.url! }, cleanup: () => test.drop() };
}
