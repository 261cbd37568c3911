/** starlark-go's chunked test-file format (internal/chunkedfile): `---` chunks, `###` expectations. */

export interface Expectation {
  line: number;
  pattern: RegExp;
  source: string;
  fired: boolean;
}

export interface Chunk {
  /** 1-based line of the chunk's first line. */
  firstLine: number;
  /** Chunk text padded with newlines so line numbers match the file. */
  source: string;
  expectations: Expectation[];
}

/** Unquote a Go string literal ("..." with escapes, or `raw`). */
function unquoteGo(lit: string): string {
  lit = lit.trim();
  if (lit.startsWith("`")) return lit.slice(1, lit.lastIndexOf("`"));
  if (!lit.startsWith('"')) throw new Error(`bad Go literal: ${lit}`);
  let out = "";
  for (let i = 1; i < lit.length; i++) {
    const c = lit[i];
    if (c === '"') return out;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = lit[++i];
    const simple: Record<string, string> = {
      n: "\n",
      t: "\t",
      r: "\r",
      "\\": "\\",
      '"': '"',
      "'": "'",
      a: "\x07",
      b: "\b",
      f: "\f",
      v: "\v",
    };
    if (e in simple) out += simple[e];
    else if (e === "x") {
      out += String.fromCharCode(parseInt(lit.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (e === "u") {
      out += String.fromCodePoint(parseInt(lit.slice(i + 1, i + 5), 16));
      i += 4;
    } else if (e === "U") {
      out += String.fromCodePoint(parseInt(lit.slice(i + 1, i + 9), 16));
      i += 8;
    } else if (e >= "0" && e <= "7") {
      out += String.fromCharCode(parseInt(lit.slice(i, i + 3), 8));
      i += 2;
    } else throw new Error(`bad escape in Go literal: ${lit}`);
  }
  throw new Error(`unterminated Go literal: ${lit}`);
}

export function readChunks(text: string): Chunk[] {
  const chunks: Chunk[] = [];
  let line = 1;
  for (const part of text.split("\n---\n")) {
    const expectations: Expectation[] = [];
    part.split("\n").forEach((l, i) => {
      const k = l.indexOf("###");
      if (k < 0) return;
      const lit = l.slice(k + 3).trim();
      const pattern = unquoteGo(lit);
      expectations.push({
        line: line + i,
        pattern: new RegExp(pattern),
        source: pattern,
        fired: false,
      });
    });
    chunks.push({ firstLine: line, source: "\n".repeat(line - 1) + part, expectations });
    line += part.split("\n").length + 1;
  }
  return chunks;
}
