import assert from "node:assert/strict";
import { denortProblem } from "./compile.ts";
import { existingServices } from "./services.ts";

/**
 * The metadata `deno compile` embeds in a binary (Deno 2.9: a JSON document right after its
 * 8-byte little-endian length, in the section the runtime reads at start).
 */
function embeddedMetadata(binary: Uint8Array): {
  permissions: Record<string, string[] | null>;
  v8_flags: string[];
} {
  const at = new TextDecoder("latin1").decode(binary).indexOf('{"argv":');
  assert.ok(at >= 8, "no embedded metadata");
  const length = Number(new DataView(binary.buffer, binary.byteOffset).getBigUint64(at - 8, true));
  return JSON.parse(new TextDecoder().decode(binary.subarray(at, at + length)));
}

/** `--allow-env=A,B` → `allow_env: ["A", "B"]`, `--allow-net` → `allow_net: []`. */
function grants(flags: readonly string[]): Record<string, string[]> {
  return Object.fromEntries(flags.map((flag) => {
    const m = /^--allow-([a-z-]+)(?:=(.*))?$/.exec(flag);
    assert.ok(m, `not a permission flag: ${flag}`);
    return [`allow_${m[1].replaceAll("-", "_")}`, m[2] === undefined ? [] : m[2].split(",")];
  }));
}

// deno compile cannot run here for real (no denort runtime can be downloaded), but with any
// executable as DENORT_BIN and --payload-only it resolves, checks and embeds everything a binary
// needs: this catches modules or npm packages that break compilation (prom-client did,
// denoland/deno#36746).
Deno.test({
  name: "deno task compile embeds every service with its permissions",
  sanitizeResources: false,
  async fn() {
    const out = await Deno.makeTempDir();
    try {
      const result = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          new URL("./compile.ts", import.meta.url).pathname,
          "--no-build-info",
          "--payload-only",
          "--out",
          out,
        ],
        cwd: new URL("../", import.meta.url),
        env: { DENORT_BIN: "/bin/true", NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(result.stdout) +
        new TextDecoder().decode(result.stderr);
      assert.ok(result.success, text);
      // It says the files do not run, and why.
      assert.match(
        text,
        /^compile: payload only: DENORT_BIN=\/bin\/true is not the denort runtime of Deno \S+ for \S+: no Deno runtime in it \(no "Deno\/\S+" version string\); the files written hold each service's payload but do not run$/m,
      );
      for (const name of ["mock-oidc", "todo-api"]) {
        assert.match(text, new RegExp(`compile: ${name} -> `));
        assert.ok((await Deno.stat(`${out}/${name}`)).size > 1_000_000, name);
      }
      assert.match(text, /swagger-ui-dist/, "docs assets are embedded");
      // Workers load their module by URL at run time: compile only embeds it when included.
      assert.match(text, /sign_worker\.ts/, "mock-oidc's signing worker is embedded");
      assert.match(text, /serve_worker\.ts/, "todo-api's serve worker is embedded");
      // Modules loaded by a specifier the module graph does not see: embedded only when included.
      assert.match(text, /s3_store\.ts/, "image-proxy's S3 store is embedded");
      assert.match(text, /otlp_metrics\.ts/, "image-proxy's OTLP metrics are embedded");
      assert.match(text, /compile: mcp-server -> /);
      assert.match(text, /compile: runner-ctl -> /);
      assert.match(
        text,
        /─┬ execute \([^)]*\)(?:\n[^\n┬]*\.ts \([^)]*\))*\n[^\n┬]*worker\.ts/,
        "mcp-server's execute worker (execute/worker.ts) is embedded",
      );
      // Each binary carries exactly its service's grants from deploy/services.ts (nothing more)
      // and its V8 flags, as the runtime will read them.
      const services = existingServices(new URL("../", import.meta.url));
      assert.deepEqual(services.map((s) => s.name).sort(), [
        "image-proxy",
        "mcp-server",
        "mock-oidc",
        "runner-ctl",
        "todo-api",
      ]);
      for (const svc of services) {
        const meta = embeddedMetadata(await Deno.readFile(`${out}/${svc.name}`));
        const embedded = Object.fromEntries(
          Object.entries(meta.permissions).filter(([k, v]) =>
            k.startsWith("allow_") && k !== "allow_import" && v !== null
          ),
        );
        assert.deepEqual(embedded, grants(svc.permissions), svc.name);
        assert.ok(!svc.permissions.includes("-A") && !("allow_all" in meta.permissions), svc.name);
        const v8 = svc.v8Flags ?? [];
        assert.deepEqual(meta.v8_flags.slice(meta.v8_flags.length - v8.length), v8, svc.name);
      }
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});

Deno.test("deno task compile says what is missing when denort cannot be had", async () => {
  const denoDir = await Deno.makeTempDir();
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./compile.ts", import.meta.url).pathname, "--out", "/nonexistent"],
    env: { DENORT_BIN: "", DENO_DIR: denoDir, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(denoDir, { recursive: true });
  const err = new TextDecoder().decode(result.stderr).trim().split("\n").at(-1) ?? "";
  if (result.success) return; // a machine that can download denort has nothing to report
  assert.match(
    err,
    /^Cannot compile: the denort .* runtime cannot be downloaded here; set DENORT_BIN/,
  );
});

/** Runs the compile task with `env`; its exit code and its stdout and stderr together. */
async function compileTask(args: string[], env: Record<string, string>) {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./compile.ts", import.meta.url).pathname, ...args],
    cwd: new URL("../", import.meta.url),
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return {
    code: result.code,
    stdout: dec.decode(result.stdout),
    stderr: dec.decode(result.stderr),
  };
}

Deno.test("deno task compile refuses a DENORT_BIN that is not denort, in one line, before any work", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const fake = `${dir}/denort`;
    await Deno.writeTextFile(fake, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const v = Deno.version.deno;
    const cases: Array<[string, string]> = [
      ["/bin/true", `no Deno runtime in it (no "Deno/${v}" version string)`],
      [fake, `not an executable binary for ${Deno.build.os}`],
      [Deno.execPath(), "it is the deno CLI, not its denort runtime"],
    ];
    for (const [bin, why] of cases) {
      const ran = await compileTask(["--no-build-info", "--out", `${dir}/out`, "mock-oidc"], {
        DENORT_BIN: bin,
      });
      assert.equal(ran.code, 1, ran.stdout + ran.stderr);
      assert.equal(ran.stdout, "", bin);
      assert.equal(
        ran.stderr,
        `Cannot compile: DENORT_BIN=${bin} is not the denort runtime of Deno ${v} for ` +
          `${Deno.build.target}: ${why}\n`,
      );
      // Refused before the type check and before anything is written.
      await assert.rejects(Deno.stat(`${dir}/out`), Deno.errors.NotFound);
    }
    const none = await compileTask(["--payload-only", "--out", `${dir}/out`], { DENORT_BIN: "" });
    assert.equal(none.code, 1);
    assert.equal(
      none.stderr,
      "Cannot compile: --payload-only needs DENORT_BIN (any executable)\n",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("denortProblem: an executable of this platform naming this Deno's version, not the CLI", async () => {
  const dir = await Deno.makeTempDir();
  const v = "2.9.6";
  const elf = [0x7f, 0x45, 0x4c, 0x46];
  const file = async (name: string, bytes: number[] | string, mode = 0o755) => {
    const path = `${dir}/${name}`;
    const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
    await Deno.writeFile(path, new Uint8Array(data), { mode });
    await Deno.chmod(path, mode); // the umask may have taken bits off
    return path;
  };
  const ascii = (s: string) => [...new TextEncoder().encode(s)];
  try {
    if (Deno.build.os !== "linux") return; // the fakes below are ELF files
    const runtime = [...elf, 0, 0, ...ascii(`setDeno/${v}Deno/${v}+abc`), 0];
    assert.equal(await denortProblem(await file("denort", runtime), v), undefined);
    assert.equal(await denortProblem(`${dir}/missing`, v), "no such file");
    assert.equal(await denortProblem(dir, v), "not a file");
    assert.equal(await denortProblem(await file("plain", runtime, 0o644), v), "not executable");
    assert.equal(
      await denortProblem(await file("script", "#!/bin/sh\n"), v),
      "not an executable binary for linux",
    );
    assert.equal(
      await denortProblem(await file("true", [...elf, 0, 1, 2]), v),
      `no Deno runtime in it (no "Deno/${v}" version string)`,
    );
    assert.equal(
      await denortProblem(await file("old", [...elf, ...ascii("Deno/2.9.5 ")]), v),
      "it is Deno 2.9.5's, not 2.9.6's",
    );
    // 2.9.60 is not 2.9.6 (nor is 2.9.6.1).
    assert.equal(
      await denortProblem(await file("newer", [...elf, ...ascii("Deno/2.9.60 Deno/2.9.6.1")]), v),
      "it is Deno 2.9.60's, not 2.9.6's",
    );
    assert.equal(
      await denortProblem(await file("cli", [...runtime, ...ascii("DENORT_BIN")]), v),
      "it is the deno CLI, not its denort runtime",
    );
    assert.equal(
      await denortProblem(Deno.execPath()),
      "it is the deno CLI, not its denort runtime",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
