/**
 * Reads a whole file (or stdin for `-`) but never more than `limit + 1` bytes, so an oversize
 * input is refused without being read in full.
 *
 * @module
 */

/** The bytes of `path`, or `undefined` when it holds more than `limit` bytes. */
export async function readBounded(path: string, limit: number): Promise<Uint8Array | undefined> {
  const file = path === "-" ? undefined : await Deno.open(path, { read: true });
  const reader = file ?? Deno.stdin;
  try {
    const buf = new Uint8Array(limit + 1);
    let n = 0;
    while (n < buf.length) {
      const got = await reader.read(buf.subarray(n));
      if (got === null) break;
      n += got;
    }
    return n > limit ? undefined : buf.slice(0, n);
  } finally {
    file?.close();
  }
}
