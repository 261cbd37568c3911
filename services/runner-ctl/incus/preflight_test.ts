import assert from "node:assert/strict";
import { preflight } from "./preflight.ts";
import { IncusError, IncusTransport } from "./transport.ts";
import { incusSetup } from "./_test_support.ts";

Deno.test("preflight", async (t) => {
  const x = await incusSetup({
    images: {
      ct: { fingerprint: "c".repeat(64), type: "container" },
      tagged: { fingerprint: "d".repeat(64), type: "virtual-machine", profiles: ["big"] },
    },
  });
  x.fake.profiles.set("default/big", {
    name: "big",
    description: "",
    config: { "limits.cpu": "8", "limits.memory": "8GiB" },
    devices: { eth0: { type: "nic", network: "br0" } },
  });
  try {
    await t.step("resolves the alias and pins the default profile when none given", async () => {
      const p = await preflight(x.transport, {
        image: "runner",
        profiles: [],
        type: "virtual-machine",
      });
      assert.equal(p.fingerprint, "a".repeat(64));
      assert.equal(p.follows, true, "an alias is followed");
      assert.deepEqual(p.profiles, ["default"]);
      assert.deepEqual(p.config, { "limits.cpu": "2" });
      assert.deepEqual(Object.keys(p.devices), ["root"]);
      assert.equal(p.serverVersion, "6.0.4");
    });
    await t.step(
      "with no profiles given, the image's own profile selection is pinned",
      async () => {
        const p = await preflight(x.transport, {
          image: "tagged",
          profiles: [],
          type: "virtual-machine",
        });
        assert.equal(p.fingerprint, "d".repeat(64));
        assert.deepEqual(p.profiles, ["big"]);
        assert.deepEqual(p.config, { "limits.cpu": "8", "limits.memory": "8GiB" });
        assert.deepEqual(Object.keys(p.devices), ["eth0"]);
      },
    );
    await t.step("a fingerprint prefix resolves to the full fingerprint", async () => {
      const p = await preflight(x.transport, {
        image: "aaaaaaaaaaaa",
        profiles: [],
        type: "virtual-machine",
      });
      assert.equal(p.fingerprint, "a".repeat(64));
      assert.equal(p.follows, false, "a fingerprint is pinned");
    });
    await t.step("profiles merge in order (later wins)", async () => {
      const p = await preflight(x.transport, {
        image: "runner",
        profiles: ["default", "big"],
        type: "virtual-machine",
      });
      assert.deepEqual(p.config, { "limits.cpu": "8", "limits.memory": "8GiB" });
      assert.deepEqual(Object.keys(p.devices).sort(), ["eth0", "root"]);
    });
    await t.step("rejections name the problem", async () => {
      await assert.rejects(
        preflight(x.transport, { image: "nope", profiles: [], type: "virtual-machine" }),
        /image alias or fingerprint does not exist/,
      );
      await assert.rejects(
        preflight(x.transport, { image: "ct", profiles: [], type: "virtual-machine" }),
        /not a virtual-machine image/,
      );
      await assert.rejects(
        preflight(x.transport, { image: "runner", profiles: ["ghost"], type: "virtual-machine" }),
        /profile "ghost" does not exist/,
      );
      const other = new IncusTransport({ socket: x.fake.path, project: "missing" });
      try {
        await assert.rejects(
          preflight(other, { image: "runner", profiles: [], type: "virtual-machine" }),
          /the project does not exist/,
        );
      } finally {
        other.close();
      }
    });
  } finally {
    await x.close();
  }
});

Deno.test("preflight fails clearly when the socket is absent", async () => {
  const t = new IncusTransport({ socket: "/nonexistent/unix.socket", project: "default" });
  try {
    await assert.rejects(
      preflight(t, { image: "runner", profiles: [], type: "virtual-machine" }),
      /Cannot reach Incus at its socket \/nonexistent\/unix\.socket:/,
    );
  } finally {
    t.close();
  }
});

Deno.test("preflight: names in Incus's answers never address another path", async (t) => {
  const fp = "a".repeat(64);
  function scripted(alias: unknown, image: unknown, project = "default") {
    const seen: string[] = [];
    const transport = new IncusTransport({
      socket: "/nonexistent",
      project,
      fetch: (input) => {
        const path = new URL(String(input)).pathname;
        seen.push(path);
        const metadata = path === "/1.0"
          ? { environment: { driver: "qemu", server_version: "6.0.4" } }
          : path === "/1.0/projects/default"
          ? { name: "default" }
          : path.startsWith("/1.0/images/aliases/")
          ? alias
          : path.startsWith("/1.0/images/")
          ? image
          : { config: {}, devices: {} };
        return Promise.resolve(Response.json({ type: "sync", metadata }));
      },
    });
    return { seen, transport };
  }
  const notAName = (e: unknown) => e instanceof IncusError && /not a valid name/.test(e.message);
  const options = { image: "runner", profiles: [], type: "virtual-machine" as const };
  await t.step("an alias whose target is ..", async () => {
    const { seen, transport } = scripted({ target: "..", type: "virtual-machine" }, {});
    await assert.rejects(preflight(transport, options), notAName);
    assert.deepEqual(seen, ["/1.0", "/1.0/projects/default", "/1.0/images/aliases/runner"]);
  });
  await t.step("an image whose profiles name ..", async () => {
    const image = { fingerprint: fp, type: "virtual-machine", profiles: [".."] };
    const { seen, transport } = scripted({ target: fp }, image);
    await assert.rejects(preflight(transport, options), notAName);
    assert.equal(seen.at(-1), `/1.0/images/${fp}`, "no profile was read");
  });
  await t.step("a configured profile or project named ..", async () => {
    const { seen, transport } = scripted({ target: fp }, {
      fingerprint: fp,
      type: "virtual-machine",
    });
    await assert.rejects(preflight(transport, { ...options, profiles: [".."] }), notAName);
    assert.ok(!seen.some((p) => p === "/1.0/" || p === "/1.0/profiles"), seen.join(", "));
    const other = scripted({ target: fp }, {}, "..");
    await assert.rejects(preflight(other.transport, options), notAName);
    assert.deepEqual(other.seen, ["/1.0"], "the project was not read");
  });
});
