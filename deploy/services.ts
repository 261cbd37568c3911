/**
 * The deployable services: entry point, the exact permissions each one runs with (used by the
 * compile task, the dev runner and the container files), and the ports `deno task dev` gives it.
 *
 * @module
 */

/** One service of the workspace. */
export interface ServiceDeployment {
  name: string;
  /** Entry module, relative to the repository root. */
  entry: string;
  /** Deno permission flags, explicit; never `-A`. */
  permissions: string[];
  /** Extra files to embed in the compiled binary (npm assets read at run time). */
  include: string[];
  /** Commands `deno task dev` runs first (e.g. migrations of the embedded database). */
  devSetup: string[][];
  /** Arguments `deno task dev` runs the service with: its own ports, embedded defaults. */
  devArgs: string[];
}

/** Every service, in start order. Services whose entry does not exist yet are skipped. */
export const SERVICES: readonly ServiceDeployment[] = [
  {
    name: "mock-oidc",
    entry: "services/mock-oidc/main.ts",
    // Reads its config, static assets and TLS files from operator-chosen paths; FFI reaches the
    // system libcrypto for RSA signing (≈5× faster than WebCrypto; without the grant it falls
    // back to WebCrypto).
    permissions: [
      "--allow-net",
      "--allow-read",
      "--allow-env",
      "--allow-ffi",
      "--allow-sys=hostname,osRelease,uid",
    ],
    include: [],
    devSetup: [],
    devArgs: ["--addr", "127.0.0.1:8080", "--metrics-addr", "127.0.0.1:9090"],
  },
  {
    name: "todo-api",
    entry: "services/todo-api/main.ts",
    // The embedded database lives in ./.data; PGlite reads its own wasm from node_modules (in a
    // compiled binary from the embedded file system, which needs no grant).
    permissions: [
      "--allow-net",
      "--allow-read=./.data,./node_modules",
      "--allow-write=./.data",
      "--allow-env=TODOAPI_*,PG*",
    ],
    include: [],
    devSetup: [["migrate", "up"]],
    devArgs: ["serve", "--addr", "127.0.0.1:8081", "--metrics-addr", "127.0.0.1:9091"],
  },
];

/** The services whose entry module exists in this checkout. */
export function existingServices(root: URL): ServiceDeployment[] {
  return SERVICES.filter((s) => {
    try {
      return Deno.statSync(new URL(s.entry, root)).isFile;
    } catch {
      return false;
    }
  });
}
