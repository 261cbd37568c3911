import assert from "node:assert/strict";
import { createLogger } from "@svc/shared/log";
import { waitUntil } from "@svc/testing";
import { createNotifier, notifyAddress, Watchdog, watchdogIntervalMs } from "./systemd_notify.ts";

/** A fake NOTIFY_SOCKET: a datagram listener collecting what arrives. */
async function fakeNotifySocket(abstract: boolean) {
  const dir = await Deno.makeTempDir({ prefix: "notify-" });
  const name = `runner-ctl-test-${crypto.randomUUID()}`;
  const path = abstract ? `\0${name}` : `${dir}/notify`;
  const conn = Deno.listenDatagram({ transport: "unixpacket", path });
  const got: string[] = [];
  const pump = (async () => {
    try {
      for await (const [data] of conn) got.push(new TextDecoder().decode(data));
    } catch { /* closed */ }
  })();
  return {
    env: abstract ? `@${name}` : path,
    got,
    next(n: number) {
      return waitUntil(() => got.length >= n, { what: `${n} datagrams`, timeoutMs: 10_000 });
    },
    async close() {
      conn.close();
      await pump;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function logged() {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: createLogger({ write: (l) => lines.push(JSON.parse(l)) }) };
}

Deno.test("notifyAddress(): a path as is, @name abstract, anything else unsupported", () => {
  assert.equal(notifyAddress("/run/systemd/notify"), "/run/systemd/notify");
  assert.equal(notifyAddress("@sd-notify"), "\0sd-notify");
  for (const v of [undefined, "", "@", "run/notify", "vsock:2:1234", "./x"]) {
    assert.equal(notifyAddress(v), undefined, String(v));
  }
});

Deno.test("watchdogIntervalMs(): half of WATCHDOG_USEC, at least 1 ms; unset or bad is none", () => {
  const at = (v: string | undefined) => watchdogIntervalMs(() => v);
  assert.equal(at("60000000"), 30_000);
  assert.equal(at("4000"), 2);
  assert.equal(at("2000"), 1);
  assert.equal(at("1999"), 1, "never 0");
  assert.equal(at("1"), 1);
  for (const v of [undefined, "", "0", "-5", "1.5", "abc"]) assert.equal(at(v), undefined, v);
});

Deno.test("createNotifier(): nothing without NOTIFY_SOCKET; a warning for an unsupported one", () => {
  const { lines, logger } = logged();
  assert.equal(createNotifier(() => undefined, logger), undefined);
  const notGranted = () => {
    throw new Deno.errors.NotCapable('Requires env access to "NOTIFY_SOCKET"');
  };
  assert.equal(createNotifier(notGranted, logger), undefined, "a run without the grant");
  assert.equal(watchdogIntervalMs(notGranted), undefined);
  assert.equal(lines.length, 0);
  assert.equal(createNotifier(() => "vsock:2:99", logger), undefined);
  assert.deepEqual(lines.map((l) => l.msg), [
    "NOTIFY_SOCKET names no Unix socket; not notifying systemd",
  ]);
});

for (const abstract of [false, true]) {
  Deno.test(`a notifier sends one datagram per state to ${abstract ? "an abstract" : "a path"} NOTIFY_SOCKET`, async () => {
    const sock = await fakeNotifySocket(abstract);
    const { logger } = logged();
    const n = createNotifier((k) => k === "NOTIFY_SOCKET" ? sock.env : undefined, logger)!;
    try {
      await n.send("READY=1");
      await n.send("WATCHDOG=1");
      await sock.next(2);
      assert.deepEqual(sock.got, ["READY=1", "WATCHDOG=1"]);
    } finally {
      n.close();
      await sock.close();
    }
  });
}

Deno.test("a notifier whose socket is gone warns once and never throws", async () => {
  const { lines, logger } = logged();
  const n = createNotifier(() => "@runner-ctl-test-nobody-listens", logger)!;
  await n.send("READY=1");
  await n.send("WATCHDOG=1");
  n.close();
  assert.deepEqual(lines.map((l) => [l.msg, l.state]), [["cannot notify systemd", "READY=1"]]);
});

Deno.test("the watchdog pings only while both loops make progress within the stall bound", async () => {
  const sock = await fakeNotifySocket(true);
  const { lines, logger } = logged();
  const notifier = createNotifier(() => sock.env, logger)!;
  let clock = 0;
  const wd = new Watchdog({ notifier, logger, now: () => clock, stallMs: 1000 });
  let sent = 0;
  const pings = async (expected: boolean) => {
    assert.equal(await wd.tick(), expected);
    if (expected) await sock.next(++sent);
    assert.equal(sock.got.length, sent);
  };
  try {
    await pings(true); // just started: both fresh
    clock = 1000;
    wd.progress("listener");
    await pings(true); // the reconcile loop's last progress exactly at the bound
    clock = 1001;
    await pings(false); // 1 ms past it: stuck reconcile loop, no ping
    await pings(false);
    let errors = lines.filter((l) => l.level === "error");
    assert.equal(errors.length, 1, "one error per stall");
    assert.deepEqual([errors[0].loop, errors[0].idle_ms, errors[0].stall_ms], [
      "reconcile",
      1001,
      1000,
    ]);
    wd.progress("reconcile");
    await pings(true);
    assert.equal(lines.at(-1)?.msg, "watchdog: progress again");
    // The listener hangs in a long poll: 1000 ms since its last poll still pings, 1001 does not.
    clock = 2000;
    wd.progress("reconcile");
    await pings(true);
    clock = 2001;
    wd.progress("reconcile");
    await pings(false);
    errors = lines.filter((l) => l.level === "error");
    assert.equal(errors.at(-1)?.loop, "listener");
    assert.equal(wd.stalled(), "listener");
    assert.ok(sock.got.every((s) => s === "WATCHDOG=1"));
  } finally {
    notifier.close();
    await sock.close();
  }
});
