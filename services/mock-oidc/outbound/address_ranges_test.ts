import assert from "node:assert/strict";
import { type AddressKind, addressKind } from "./address_ranges.ts";

type Edge = [address: string, kind: AddressKind];

/**
 * Each IANA special-purpose range at its edges: its first and last address, and the addresses
 * just outside (none past the end of the address space). Written out, not computed, so the test
 * does not share the code's arithmetic.
 */
const RANGES: Array<
  { range: string; kind: AddressKind; first: string; last: string; before?: Edge; after?: Edge }
> = [
  // IPv4
  {
    range: "0.0.0.0/8",
    kind: "special",
    first: "0.0.0.0",
    last: "0.255.255.255",
    after: ["1.0.0.0", "public"],
  },
  {
    range: "10.0.0.0/8",
    kind: "special",
    first: "10.0.0.0",
    last: "10.255.255.255",
    before: ["9.255.255.255", "public"],
    after: ["11.0.0.0", "public"],
  },
  {
    range: "100.64.0.0/10",
    kind: "special",
    first: "100.64.0.0",
    last: "100.127.255.255",
    before: ["100.63.255.255", "public"],
    after: ["100.128.0.0", "public"],
  },
  {
    range: "127.0.0.0/8",
    kind: "loopback",
    first: "127.0.0.0",
    last: "127.255.255.255",
    before: ["126.255.255.255", "public"],
    after: ["128.0.0.0", "public"],
  },
  {
    range: "169.254.0.0/16",
    kind: "special",
    first: "169.254.0.0",
    last: "169.254.255.255",
    before: ["169.253.255.255", "public"],
    after: ["169.255.0.0", "public"],
  },
  {
    range: "172.16.0.0/12",
    kind: "special",
    first: "172.16.0.0",
    last: "172.31.255.255",
    before: ["172.15.255.255", "public"],
    after: ["172.32.0.0", "public"],
  },
  {
    range: "192.0.0.0/24",
    kind: "special",
    first: "192.0.0.0",
    last: "192.0.0.255",
    before: ["191.255.255.255", "public"],
    after: ["192.0.1.0", "public"],
  },
  {
    range: "192.0.2.0/24",
    kind: "special",
    first: "192.0.2.0",
    last: "192.0.2.255",
    before: ["192.0.1.255", "public"],
    after: ["192.0.3.0", "public"],
  },
  {
    range: "192.31.196.0/24",
    kind: "special",
    first: "192.31.196.0",
    last: "192.31.196.255",
    before: ["192.31.195.255", "public"],
    after: ["192.31.197.0", "public"],
  },
  {
    range: "192.52.193.0/24",
    kind: "special",
    first: "192.52.193.0",
    last: "192.52.193.255",
    before: ["192.52.192.255", "public"],
    after: ["192.52.194.0", "public"],
  },
  {
    range: "192.88.99.0/24",
    kind: "special",
    first: "192.88.99.0",
    last: "192.88.99.255",
    before: ["192.88.98.255", "public"],
    after: ["192.88.100.0", "public"],
  },
  {
    range: "192.168.0.0/16",
    kind: "special",
    first: "192.168.0.0",
    last: "192.168.255.255",
    before: ["192.167.255.255", "public"],
    after: ["192.169.0.0", "public"],
  },
  {
    range: "192.175.48.0/24",
    kind: "special",
    first: "192.175.48.0",
    last: "192.175.48.255",
    before: ["192.175.47.255", "public"],
    after: ["192.175.49.0", "public"],
  },
  {
    range: "198.18.0.0/15",
    kind: "special",
    first: "198.18.0.0",
    last: "198.19.255.255",
    before: ["198.17.255.255", "public"],
    after: ["198.20.0.0", "public"],
  },
  {
    range: "198.51.100.0/24",
    kind: "special",
    first: "198.51.100.0",
    last: "198.51.100.255",
    before: ["198.51.99.255", "public"],
    after: ["198.51.101.0", "public"],
  },
  {
    range: "203.0.113.0/24",
    kind: "special",
    first: "203.0.113.0",
    last: "203.0.113.255",
    before: ["203.0.112.255", "public"],
    after: ["203.0.114.0", "public"],
  },
  {
    range: "224.0.0.0/4",
    kind: "special",
    first: "224.0.0.0",
    last: "239.255.255.255",
    before: ["223.255.255.255", "public"],
    after: ["240.0.0.0", "special"],
  },
  {
    range: "240.0.0.0/4",
    kind: "special",
    first: "240.0.0.0",
    last: "255.255.255.255",
    before: ["239.255.255.255", "special"],
  },
  {
    range: "255.255.255.255/32",
    kind: "special",
    first: "255.255.255.255",
    last: "255.255.255.255",
    before: ["255.255.255.254", "special"],
  },
  // IPv6
  { range: "::/128", kind: "special", first: "::", last: "::", after: ["::1", "loopback"] },
  {
    range: "::1/128",
    kind: "loopback",
    first: "::1",
    last: "::1",
    before: ["::", "special"],
    after: ["::2", "special"],
  },
  {
    range: "::ffff:0:0/96 (of 0.0.0.0/8 and 240/4)",
    kind: "special",
    first: "::ffff:0:0",
    last: "::ffff:ffff:ffff",
    before: ["::fffe:ffff:ffff", "special"],
    after: ["::1:0:0:0", "special"],
  },
  {
    range: "64:ff9b::/96 (of 0.0.0.0/8 and 240/4)",
    kind: "special",
    first: "64:ff9b::",
    last: "64:ff9b::ffff:ffff",
    before: ["64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", "special"],
    after: ["64:ff9b::1:0:0", "special"],
  },
  {
    range: "64:ff9b:1::/48",
    kind: "special",
    first: "64:ff9b:1::",
    last: "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
    before: ["64:ff9b:0:ffff:ffff:ffff:ffff:ffff", "special"],
    after: ["64:ff9b:2::", "special"],
  },
  {
    range: "100::/64",
    kind: "special",
    first: "100::",
    last: "100::ffff:ffff:ffff:ffff",
    before: ["ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "special"],
    after: ["100:0:0:1::", "special"],
  },
  {
    range: "2001::/23",
    kind: "special",
    first: "2001::",
    last: "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
    before: ["2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "public"],
    after: ["2001:200::", "public"],
  },
  {
    range: "2001::/32 (Teredo)",
    kind: "special",
    first: "2001::",
    last: "2001:0:ffff:ffff:ffff:ffff:ffff:ffff",
    after: ["2001:1::", "special"],
  },
  {
    range: "2001:db8::/32",
    kind: "special",
    first: "2001:db8::",
    last: "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
    before: ["2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "public"],
    after: ["2001:db9::", "public"],
  },
  {
    range: "2002::/16",
    kind: "special",
    first: "2002::",
    last: "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    before: ["2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "public"],
    after: ["2003::", "public"],
  },
  {
    range: "3fff::/20",
    kind: "special",
    first: "3fff::",
    last: "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
    before: ["3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "public"],
    after: ["3fff:1000::", "public"],
  },
  {
    range: "5f00::/16",
    kind: "special",
    first: "5f00::",
    last: "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    before: ["5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "special"],
    after: ["5f01::", "special"],
  },
  {
    range: "fc00::/7",
    kind: "special",
    first: "fc00::",
    last: "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    before: ["fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "special"],
    after: ["fe00::", "special"],
  },
  {
    range: "fe80::/10",
    kind: "special",
    first: "fe80::",
    last: "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    before: ["fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "special"],
    after: ["fec0::", "special"],
  },
  {
    range: "fec0::/10",
    kind: "special",
    first: "fec0::",
    last: "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    before: ["febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "special"],
    after: ["ff00::", "special"],
  },
  {
    range: "ff00::/8",
    kind: "special",
    first: "ff00::",
    last: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    before: ["feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "special"],
  },
  {
    range: "2000::/3 (global unicast)",
    kind: "public",
    first: "2000::",
    last: "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    before: ["1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "special"],
    after: ["4000::", "special"],
  },
];

Deno.test("addressKind: every special-purpose range at its first and last address and just outside", async (t) => {
  for (const { range, kind, first, last, before, after } of RANGES) {
    await t.step(range, () => {
      assert.equal(addressKind(first), kind, first);
      assert.equal(addressKind(last), kind, last);
      if (before) assert.equal(addressKind(before[0]), before[1], before[0]);
      if (after) assert.equal(addressKind(after[0]), after[1], after[0]);
    });
  }
});

Deno.test("addressKind: embedded IPv4 decides for mapped and NAT64 addresses", () => {
  const cases: Edge[] = [
    // ::ffff:0:0/96 is what its IPv4 address is, in either spelling
    ["::ffff:8.8.8.8", "public"],
    ["::ffff:808:808", "public"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "special"],
    ["::ffff:a00:1", "special"],
    ["::ffff:198.51.100.1", "special"],
    ["::ffff:169.254.169.254", "special"],
    // 64:ff9b::/96 is public only when its IPv4 address is; loopback through a gateway is not
    ["64:ff9b::8.8.8.8", "public"],
    ["64:ff9b::808:808", "public"],
    ["64:ff9b::7f00:1", "special"],
    ["64:ff9b::a9fe:a9fe", "special"],
    ["64:ff9b::c0a8:101", "special"],
    // 6to4 and Teredo embed any IPv4 address: refused whatever it is
    ["2002:808:808::", "special"],
    ["2002:7f00:1::", "special"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "special"],
    // IPv4-compatible (deprecated) and IPv4-translated spellings are outside 2000::/3
    ["::8.8.8.8", "special"],
    ["::ffff:0:8.8.8.8", "special"],
  ];
  for (const [address, kind] of cases) assert.equal(addressKind(address), kind, address);
});

Deno.test("addressKind: the spellings URL hosts and resolvers give, and what is no address", () => {
  const cases: Edge[] = [
    ["93.184.216.34", "public"],
    ["[2606:4700::1111]", "public"],
    ["2606:4700:0000:0000:0000:0000:0000:1111", "public"],
    ["2606:4700:0:0:0:0:0:1111", "public"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["FE80::1", "special"],
    ["[FC00::1]", "special"],
    // not addresses at all: never public
    ["", "special"],
    ["example.com", "special"],
    ["1.2.3", "special"],
    ["1.2.3.4.5", "special"],
    ["256.0.0.1", "special"],
    ["8.8.8.08x", "special"],
    ["1::2::3", "special"],
    ["1:2:3:4:5:6:7:8:9", "special"],
    ["1:2:3:4:5:6:7::8", "special"],
    ["2606:4700::11111", "special"],
    ["fe80::1%eth0", "special"],
    ["::ffff:1.2.3", "special"],
    ["[93.184.216.34]", "special"],
    ["[::ffff:127.0.0.1", "special"],
  ];
  for (const [address, kind] of cases) assert.equal(addressKind(address), kind, address);
});
