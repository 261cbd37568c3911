import assert from "node:assert/strict";
import { type Baseline, parseBaseline } from "./baseline.ts";
import { goodBaseline } from "./_test_support.ts";
import { parseSize, policyViolations } from "./policy.ts";

Deno.test("parseBaseline", async (t) => {
  await t.step("round-trips a good baseline", () => {
    assert.deepEqual(parseBaseline(JSON.stringify(goodBaseline())), goodBaseline());
  });
  await t.step("rejects bad shapes naming the field", () => {
    const cases: [unknown, RegExp][] = [
      [{ ...goodBaseline(), version: 2 }, /version must be 1/],
      [{ ...goodBaseline(), extra: 1 }, /unknown field extra/],
      [{ version: 1 }, /lacks projects/],
      [
        { version: 1, projects: [{ name: "a", config: {}, profiles: {} }] },
        /profiles is not an array/,
      ],
      [
        { version: 1, projects: [{ name: "a", config: { x: 1 }, profiles: [] }] },
        /config.x is not a string/,
      ],
      [
        { version: 1, projects: [{ name: "../x", config: {}, profiles: [] }] },
        /name is not a valid name/,
      ],
      [[], /baseline is not an object/],
    ];
    for (const [v, re] of cases) assert.throws(() => parseBaseline(JSON.stringify(v)), re);
    assert.throws(() => parseBaseline("{"), /not JSON/);
  });
});

Deno.test("policyViolations", async (t) => {
  await t.step(
    "a good baseline passes",
    () => assert.deepEqual(policyViolations(goodBaseline()), []),
  );
  await t.step("each rule is enforced", () => {
    const cases: [(b: Baseline) => void, RegExp][] = [
      [(b) => (b.projects = []), /names no project/],
      [(b) => (b.projects[0].config.restricted = "false"), /restricted must be "true"/],
      [(b) => delete b.projects[0].config["limits.instances"], /limits.instances/],
      [(b) => (b.projects[0].config["limits.cpu"] = "0"), /project runners: limits.cpu/],
      [(b) => (b.projects[0].config["limits.memory"] = "lots"), /project runners: limits.memory/],
      [(b) => (b.projects[0].profiles[0].config["limits.cpu"] = "9"), /limits.cpu exceeds/],
      [
        (b) => (b.projects[0].profiles[0].config["limits.memory"] = "17GiB"),
        /limits.memory exceeds/,
      ],
      [(b) => delete b.projects[0].profiles[0].config["security.secureboot"], /secureboot/],
      [(b) => (b.projects[0].profiles[0].config["security.privileged"] = "true"), /privileged/],
      [(b) => (b.projects[0].profiles[0].config["raw.qemu"] = "-S"), /raw.qemu is not allowed/],
      [(b) => b.projects.push(b.projects[0]), /listed twice/],
    ];
    for (const [mutate, re] of cases) {
      const b = goodBaseline();
      mutate(b);
      const v = policyViolations(b);
      assert.ok(v.some((x) => re.test(x)), `${re}: ${v.join("; ")}`);
    }
  });
  await t.step("profile ceilings at the project ceiling pass, one above fails", () => {
    const b = goodBaseline();
    b.projects[0].profiles[0].config["limits.cpu"] = "8";
    b.projects[0].profiles[0].config["limits.memory"] = "16GiB";
    assert.deepEqual(policyViolations(b), []);
    b.projects[0].profiles[0].config["limits.memory"] = String(16 * 2 ** 30 + 1);
    assert.equal(policyViolations(b).length, 1);
  });
  await t.step("parseSize", () => {
    assert.equal(parseSize("4GiB"), 4 * 2 ** 30);
    assert.equal(parseSize("512MB"), 512e6);
    assert.equal(parseSize("1024"), 1024);
    assert.equal(parseSize("4 GiB"), undefined);
    assert.equal(parseSize("-1"), undefined);
  });
});
