/**
 * A simplestreams client that downloads the way Incus's client does: plain GETs of
 * `streams/v1/index.json` and of the products file it names, only 200 accepted, then each image
 * file streamed while its SHA-256 is computed and compared with the catalogue, sizes checked.
 *
 * @module
 */

/** One downloaded and verified file. */
export interface VerifiedFile {
  product: string;
  version: string;
  item: string;
  path: string;
  size: number;
  sha256: string;
}

interface Item {
  ftype: string;
  path: string;
  sha256: string;
  size: number;
}

async function get(url: string): Promise<Response> {
  const res = await fetch(url, { headers: { "User-Agent": "incus-like-test-client" } });
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Error(`Cannot download ${url}: status ${res.status}`);
  }
  return res;
}

async function sha256Of(res: Response): Promise<{ hex: string; size: number }> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  return { hex, size: bytes.byteLength };
}

/**
 * Reads the catalogue at `base`, then every file of every product's newest version.
 *
 * @throws {Error} on any non-200 answer, a size or SHA-256 mismatch, or a malformed catalogue.
 */
export async function downloadMirror(base: string): Promise<VerifiedFile[]> {
  const index = await (await get(`${base}/streams/v1/index.json`)).json();
  if (index.format !== "index:1.0") throw new Error("Cannot read index: wrong format");
  const out: VerifiedFile[] = [];
  for (const entry of Object.values(index.index) as { path: string; datatype: string }[]) {
    if (entry.datatype !== "image-downloads") continue;
    const products = await (await get(`${base}/${entry.path}`)).json();
    if (products.format !== "products:1.0") throw new Error("Cannot read products: wrong format");
    for (
      const [name, product] of Object.entries(products.products) as [
        string,
        { versions: Record<string, { items: Record<string, Item> }> },
      ][]
    ) {
      const versions = Object.keys(product.versions).sort();
      const version = versions.at(-1)!;
      if (!/^\d{8}/.test(version)) throw new Error(`Cannot read ${name}: version ${version}`);
      for (const [itemName, item] of Object.entries(product.versions[version].items)) {
        const res = await get(`${base}/${item.path}`);
        const declared = Number(res.headers.get("content-length"));
        const { hex, size } = await sha256Of(res);
        if (declared !== item.size || size !== item.size) {
          throw new Error(`Cannot verify ${item.path}: size ${size}/${declared} != ${item.size}`);
        }
        if (hex !== item.sha256) throw new Error(`Cannot verify ${item.path}: sha256 mismatch`);
        out.push({ product: name, version, item: itemName, path: item.path, size, sha256: hex });
      }
    }
  }
  return out;
}
