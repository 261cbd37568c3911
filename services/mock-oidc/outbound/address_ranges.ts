/**
 * Which addresses an outbound fetch may reach: every IANA special-purpose range (the IPv4 and
 * IPv6 Special-Purpose Address Registries, RFC 6890 and its updates) and multicast is
 * `special`, loopback is `loopback`, the rest is `public`. IPv6 outside global unicast
 * (`2000::/3`) is special too. An IPv4-mapped address (`::ffff:0:0/96`) is what its IPv4 address
 * is; a NAT64 address of the well-known prefix (`64:ff9b::/96`) is public only when its IPv4
 * address is (a NAT64 gateway would carry the request there). Ranges that tunnel to an IPv4
 * address the prefix cannot tell (6to4 `2002::/16`, Teredo inside `2001::/23`, local-use NAT64
 * `64:ff9b:1::/48`) are special whatever they embed.
 *
 * @module
 */

/** What an address is to an outbound fetch. */
export type AddressKind = "public" | "loopback" | "special";

/** IPv4 special-purpose ranges besides loopback (`127.0.0.0/8`). */
const V4_SPECIAL = [
  "0.0.0.0/8", // "this network"
  "10.0.0.0/8", // private
  "100.64.0.0/10", // shared address space (CGN)
  "169.254.0.0/16", // link-local
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation (TEST-NET-1)
  "192.31.196.0/24", // AS112-v4
  "192.52.193.0/24", // AMT
  "192.88.99.0/24", // deprecated 6to4 relay anycast
  "192.168.0.0/16", // private
  "192.175.48.0/24", // direct delegation AS112
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation (TEST-NET-2)
  "203.0.113.0/24", // documentation (TEST-NET-3)
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, with the limited broadcast 255.255.255.255
].map((cidr) => rangeOf(cidr, parseV4));

/**
 * IPv6 special-purpose ranges inside `2000::/3`. Those outside it are special by that rule:
 * `::/128`, `::1` (loopback), `::ffff:0:0/96` and `64:ff9b::/96` (their IPv4 address decides),
 * `64:ff9b:1::/48`, `100::/64`, `5f00::/16`, `fc00::/7`, `fe80::/10`, `fec0::/10`, `ff00::/8`.
 */
const V6_SPECIAL = [
  "2001::/23", // IETF protocol assignments, Teredo 2001::/32 among them
  "2001:db8::/32", // documentation
  "2002::/16", // 6to4
  "3fff::/20", // documentation
].map((cidr) => rangeOf(cidr, parseV6));

const GLOBAL_UNICAST = rangeOf("2000::/3", parseV6);
const V4_MAPPED = rangeOf("::ffff:0:0/96", parseV6);
const NAT64 = rangeOf("64:ff9b::/96", parseV6);
const LOOPBACK_V4 = rangeOf("127.0.0.0/8", parseV4);

interface Range {
  bytes: Uint8Array;
  prefix: number;
}

function rangeOf(cidr: string, parse: (text: string) => Uint8Array | undefined): Range {
  const [address, prefix] = cidr.split("/");
  return { bytes: parse(address)!, prefix: Number(prefix) };
}

function inRange(bytes: Uint8Array, range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  const whole = range.prefix >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== range.bytes[i]) return false;
  const rest = range.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (bytes[whole] & mask) === (range.bytes[whole] & mask);
}

/** Dotted-decimal IPv4 (the form URL hosts and resolvers give), else undefined. */
function parseV4(text: string): Uint8Array | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) {
    return undefined;
  }
  return Uint8Array.from(parts.map(Number));
}

/** IPv6 in any RFC 4291 spelling (`::`, a trailing dotted IPv4), no zone; else undefined. */
function parseV6(text: string): Uint8Array | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseV4(piece);
        if (!v4) return undefined;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        out.push(parseInt(piece, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...new Array(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

function v4Kind(bytes: Uint8Array): AddressKind {
  if (inRange(bytes, LOOPBACK_V4)) return "loopback";
  return V4_SPECIAL.some((r) => inRange(bytes, r)) ? "special" : "public";
}

/**
 * What `address` is: an IPv4 or IPv6 literal as a URL host (`[…]` allowed) or a resolver gives
 * it (IPv6 only in brackets). Anything that is not an address is `special`, so it is never taken for a public one.
 *
 * @example
 * ```ts
 * addressKind("203.0.113.7"); // "special"
 * addressKind("[::ffff:7f00:1]"); // "loopback"
 * ```
 */
export function addressKind(address: string): AddressKind {
  const bracketed = /^\[(.*)\]$/.exec(address);
  const v4 = bracketed ? undefined : parseV4(address);
  if (v4) return v4Kind(v4);
  const v6 = parseV6(bracketed ? bracketed[1] : address);
  if (!v6) return "special";
  if (inRange(v6, V4_MAPPED)) return v4Kind(v6.subarray(12));
  if (inRange(v6, NAT64)) return v4Kind(v6.subarray(12)) === "public" ? "public" : "special";
  if (v6.every((b, i) => b === (i === 15 ? 1 : 0))) return "loopback";
  if (!inRange(v6, GLOBAL_UNICAST)) return "special";
  return V6_SPECIAL.some((r) => inRange(v6, r)) ? "special" : "public";
}
