/**
 * The deployable services: entry point, the exact permissions each one runs with, and the ports
 * `deno task dev` gives it. This is the one list of permissions: the compile task bakes it into
 * the binaries the container files run, the dev runner passes it, and each service's `deno.json`
 * tasks spell out the same flags (`services_test.ts` fails when they drift). Paths are relative
 * to the repository root: everything runs from there (the tasks `cd ../..` first).
 *
 * @module
 */

import { ADMIN_KEY_FILE } from "./dev/todo_key.ts";

/** One service of the workspace. */
export interface ServiceDeployment {
  name: string;
  /** Entry module, relative to the repository root. */
  entry: string;
  /** Deno permission flags, explicit; never `-A`. Paths relative to the repository root. */
  permissions: string[];
  /**
   * Extra files to embed in the compiled binary: worker modules and npm assets read at run time.
   * Modules declared with `lazyModuleAt` need no entry: the compile task embeds what the service's
   * modules declare (deploy/lazy_modules.ts).
   */
  include: string[];
  /** V8 flags baked into the binary and passed by the dev runner (e.g. heap sizing). */
  v8Flags?: string[];
  /** Commands `deno task dev` runs first (e.g. migrations of the embedded database). */
  devSetup: string[][];
  /** Arguments `deno task dev` runs the service with: its own ports, embedded defaults. */
  devArgs: string[];
  /**
   * What `deno task dev` runs instead of `entry`, when the embedded default needs a helper
   * process (image-proxy's local S3 server, which then starts the service with `permissions`).
   */
  dev?: { entry: string; permissions: string[] };
  /** Whether `deploy/<name>/Containerfile` runs the binary. @default {true} */
  container?: boolean;
  /** The row of `deno task dev`'s start-up table, and the route that answers once it is up. */
  devInfo: DevInfo;
}

/** Where a service of `deno task dev` is and what to open there. */
export interface DevInfo {
  /** Its base URL under `deno task dev` (from `devArgs`), or what to watch when it serves none. */
  url: string;
  /** What to open or run against it. */
  open: string;
  /** A URL that answers 200 once it serves; absent for a service without a listener. */
  health?: string;
}

/** Every service, in start order. Services whose entry does not exist yet are skipped. */
export const SERVICES: readonly ServiceDeployment[] = [
  {
    name: "mock-oidc",
    entry: "services/mock-oidc/main.ts",
    permissions: [
      // Listen addresses are settings (any host:port); OTLP goes where OTEL_* points.
      "--allow-net",
      // The JSON config, static assets and TLS files are operator-chosen paths (and the signing
      // workers read their module, as do the imports by URL of the modules loaded on first use).
      "--allow-read",
      // Exactly the variables its settings read (`--help`), and the OpenTelemetry SDK's.
      "--allow-env=MOCK_OIDC_*,JSON_CONFIG,JSON_CONFIG_PATH,SERVER_HOSTNAME,SERVER_PORT,PORT," +
      "LOG_LEVEL,OTEL_*",
      "--allow-sys=hostname,osRelease,uid",
      // No --allow-ffi: the default signer is WebCrypto on worker threads. `--signer openssl`
      // (load tests) needs --allow-ffi added by whoever runs it.
    ],
    // The signing workers' module, loaded by URL at run time (the modules its route rows and
    // settings load on first use are derived from their declarations: deploy/lazy_modules.ts).
    include: ["services/mock-oidc/keys/sign_worker.ts"],
    devSetup: [],
    // Plain-http client ID metadata documents on loopback: a local MCP client can serve its own.
    devArgs: [
      "--addr",
      "127.0.0.1:8080",
      "--metrics-addr",
      "127.0.0.1:9090",
      "--client-metadata-allow-http-loopback",
    ],
    devInfo: {
      url: "http://127.0.0.1:8080",
      open: "/docs (API), /_mock/ui (console), /default/debugger (debugger); issuer /default",
      health: "http://127.0.0.1:8080/healthz",
    },
  },
  {
    name: "todo-api",
    entry: "services/todo-api/main.ts",
    // The embedded database lives in ./.data (the default --data-dir; another one needs its own
    // grant); PGlite reads its own wasm from node_modules (in a compiled binary from the embedded
    // file system, which needs no grant). Postgres URL and listen addresses are settings: any net.
    permissions: [
      "--allow-net",
      // `serve --workers N` loads its worker isolates' modules from source (run from source only).
      "--allow-read=./.data,./node_modules,./services/todo-api,./shared",
      "--allow-write=./.data",
      "--allow-env=TODOAPI_*,PG*",
      // The Postgres client defaults the user name to the OS user's, as libpq does, when neither
      // the URL nor PGUSER names one (os.userInfo(): uid, gid and userInfo).
      "--allow-sys=uid,gid,userInfo",
    ],
    // `serve --workers N` starts its worker isolates from this module, by URL at run time.
    // The worker's module; the datastore clients, imported by URL (store/open_db.ts), join from
    // their lazyModuleAt declarations (deploy/lazy_modules.ts).
    include: ["services/todo-api/workers/serve_worker.ts"],
    devSetup: [["migrate", "up"]],
    devArgs: ["serve", "--addr", "127.0.0.1:8081", "--metrics-addr", "127.0.0.1:9091"],
    devInfo: {
      url: "http://127.0.0.1:8081",
      // While serve runs it holds the embedded database: a key is made through its API, with the
      // admin key dev made (deploy/dev/todo_key.ts). Run from the repository root.
      open: "/docs (API); a key: TODOAPI_API_KEY=$(cat " + ADMIN_KEY_FILE + ") deno task keys " +
        "create --url http://127.0.0.1:8081 --subject me --role user",
      // Readiness, not liveness: serve listens before its datastore is open (docs/todo-api.md).
      health: "http://127.0.0.1:8081/readyz",
    },
  },
  {
    name: "image-proxy",
    entry: "services/image-proxy/main.ts",
    permissions: [
      // The listen address and the store: AWS S3 (and STS for web identity) under
      // amazonaws.com, instance and container credential endpoints. Another store, listen
      // address or an OTLP collector: compile with their host:port in IMGPROXY_ALLOW_NET.
      `--allow-net=${imageProxyNet()}`,
      // Its settings, the AWS SDK's variables (credentials chain, endpoints, the home
      // directory of the shared files, the Lambda trace id it always reads) and the OpenTelemetry
      // SDK's. (The kit's YAML loader needs none: it hides the environment from the parser.)
      "--allow-env=IMGPROXY_*,AWS_*,OTEL_*,HOME,USERPROFILE,HOMEPATH,HOMEDRIVE,_X_AMZN_TRACE_ID",
      "--allow-sys=osRelease,homedir,uid",
      // The --config file, the AWS shared config/credentials files and the web-identity token
      // are operator-chosen paths; the modules of `include` load by a specifier the module
      // graph does not see, which needs read access to them. No write: the proxy keeps no state.
      "--allow-read",
    ],
    // The S3 store and OTLP metrics load by URL (serve.ts): their lazyModuleAt declarations
    // give the compile include (deploy/lazy_modules.ts); nothing else to list.
    include: [],
    // Every relayed chunk leaves a little JS garbage (promises, read results); a small young
    // generation collects it often. Peak RSS while streaming: ≈ 84 MiB with it, ≈ 95 MiB with
    // V8's default (tests/bench/image_proxy, which runs the proxy with these flags).
    v8Flags: ["--max-semi-space-size=1"],
    devSetup: [],
    devArgs: [],
    devInfo: {
      url: "http://127.0.0.1:8082",
      open: "/streams/v1/index.json (the sample mirror, from a local S3 server)",
      health: "http://127.0.0.1:8082/healthz",
    },
    // A local S3 server seeded with a sample mirror; it runs the proxy with `permissions`
    // narrowed to its loopback addresses.
    dev: {
      entry: "deploy/dev/image-proxy/run.ts",
      permissions: [
        "--allow-net=127.0.0.1",
        "--allow-read",
        "--allow-write=./.data",
        "--allow-env",
        "--allow-sys",
        "--allow-run",
      ],
    },
  },
  {
    name: "mcp-server",
    entry: "services/mcp-server/main.ts",
    // Net: the --openapi APIs and documents, the OIDC issuer's discovery/JWKS, its own
    // listeners. Read: the policy file and --openapi document files (operator-chosen paths) and
    // the execute worker's modules. Env: MCP_* (so API credentials live in MCP_* variables); YAML
    // documents parse through the kit's `@svc/shared/yaml`, which needs no grant.
    permissions: ["--allow-net", "--allow-read", "--allow-env=MCP_*"],
    // The execute workers' module, loaded by URL at run time (the modules its route row, serve.ts
    // and the pool load on first use are derived from their declarations: deploy/lazy_modules.ts).
    include: ["services/mcp-server/execute/worker.ts"],
    // Each stateless HTTP request leaves its MCP server, transport and parsed body as garbage.
    // A small young generation collects it young instead of V8 growing the new space to 3 × 16
    // MiB; a fixed heap growth of 25 % makes the next full collection come at 1.25 × what the last
    // one kept, where V8 would let the old generation grow up to 4 × (≈ 40 → 150 MiB of garbage
    // under load). Neither is a limit: the heap still grows as far as it needs to
    // (tests/bench/mcp_server/memory.ts, RESULTS.md "mcp-server memory under load").
    v8Flags: ["--max-semi-space-size=1", "--heap-growing-percent=25"],
    devSetup: [],
    devArgs: [
      "--transport",
      "http",
      "--addr",
      "127.0.0.1:8090",
      "--metrics-addr",
      "127.0.0.1:9092",
      "--issuer",
      "http://127.0.0.1:8080/default",
      // the resource URI tokens must name: http://127.0.0.1:8090/mcp
      "--public-origin",
      "http://127.0.0.1:8090",
      // todo-api and mock-oidc's control plane through their own OpenAPI documents; dev.ts puts
      // the todo-api key it made into MCP_TODO_API_KEY. Both peers start alongside: wait for them.
      "--openapi",
      "todos=http://127.0.0.1:8081/openapi.yaml",
      "--openapi-auth",
      "todos=header:X-API-Key:MCP_TODO_API_KEY",
      "--openapi",
      "oidc=http://127.0.0.1:8080/openapi.json",
      "--openapi-wait",
      "60s",
    ],
    devInfo: {
      url: "http://127.0.0.1:8090/mcp",
      open: "MCP URL (Streamable HTTP); a bearer token: curl -s -d grant_type=client_credentials " +
        "-d client_id=me -d scope=mcp -d resource=http://127.0.0.1:8090/mcp " +
        "http://127.0.0.1:8080/default/token",
      health: "http://127.0.0.1:8090/healthz",
    },
  },
  {
    name: "runner-ctl",
    entry: "services/runner-ctl/main.ts",
    // Reads its configuration, credential and key files and writes console captures (paths the
    // operator chooses); talks to GitHub over the network and to Incus over its Unix socket.
    permissions: [
      "--allow-net",
      "--allow-read",
      "--allow-write",
      "--allow-env=RUNNER_CTL_*,INCUS_DIR,NOTIFY_SOCKET,WATCHDOG_USEC,OTEL_*",
      "--allow-sys=hostname",
    ],
    // The packaged unit sets MemoryDenyWriteExecute, under which V8 cannot JIT.
    v8Flags: ["--jitless"],
    include: [],
    devSetup: [],
    devArgs: [],
    devInfo: {
      url: "(no HTTP listener)",
      open: "its log: scaling runners for a simulated job stream (fake GitHub and Incus)",
    },
    // A systemd service on the Incus host: deploy/runner-ctl/ holds its unit and drop-ins.
    container: false,
    dev: { entry: "deploy/dev/runner_ctl.ts", permissions: ["--allow-all"] },
  },
];

/**
 * image-proxy's network grant: `IMGPROXY_ALLOW_NET` (read when compiling or starting the dev
 * runner) or the listen default plus AWS.
 */
function imageProxyNet(): string {
  const given = Deno.permissions.querySync({ name: "env", variable: "IMGPROXY_ALLOW_NET" })
      .state === "granted"
    ? Deno.env.get("IMGPROXY_ALLOW_NET")
    : undefined;
  return given ||
    "0.0.0.0:8080,*.amazonaws.com,169.254.169.254,169.254.170.2,169.254.170.23";
}

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
