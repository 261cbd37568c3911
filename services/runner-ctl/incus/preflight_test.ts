import assert from "node:assert/strict";
import { preflight } from "./preflight.ts";
import { IncusTransport } from "./transport.ts";
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
