/**
 * Relative links of the repository's Markdown files: every `[text](target)`, `![alt](target)`
 * and HTML `src`/`href` that is not a URL must name a file or directory that exists, and its
 * `#anchor`, when it points into a Markdown file, must name a heading there (GitHub's slugs).
 * Links inside code spans and fenced blocks are text, not links, and are skipped.
 *
 * @module
 */

/** One link that does not resolve. */
export interface BrokenLink {
  /** The Markdown file, relative to the root. */
  file: string;
  /** 1-based line of the link. */
  line: number;
  /** The target as written. */
  target: string;
  /** Why it does not resolve. */
  reason: string;
}

/** One link as written in a Markdown file. */
export interface MarkdownLink {
  /** 1-based line. */
  line: number;
  /** The target as written (no title). */
  target: string;
}

const INLINE = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const HTML = /\s(?:src|href)="([^"]+)"/g;
const REFERENCE = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/;

/** Links of a Markdown text, outside fenced blocks and code spans. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  let fence: string | undefined;
  text.split("\n").forEach((raw, i) => {
    const opener = raw.match(/^\s{0,3}(`{3,}|~{3,})/);
    if (opener) {
      if (fence === undefined) fence = opener[1][0];
      else if (opener[1][0] === fence) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const line = raw.replace(/(`+)(?:(?!\1).)+\1/g, "");
    const reference = line.match(REFERENCE);
    if (reference) links.push({ line: i + 1, target: reference[1] });
    for (const m of line.matchAll(INLINE)) links.push({ line: i + 1, target: m[1] });
    for (const m of line.matchAll(HTML)) links.push({ line: i + 1, target: m[1] });
  });
  return links;
}

/** GitHub's anchor of each heading of a Markdown text, duplicates numbered `-1`, `-2`, … */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const opener = line.match(/^\s{0,3}(`{3,}|~{3,})/);
    if (opener) {
      if (fence === undefined) fence = opener[1][0];
      else if (opener[1][0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = line.match(/^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/);
    if (heading) {
      const base = slug(heading[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}

/** GitHub's slug of a heading: lower case, punctuation dropped, spaces to `-`. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
    .replace(/ /g, "-");
}

/** Options of {@linkcode checkMarkdownLinks}. */
export interface CheckOptions {
  /** Repository root, absolute, ending in `/`. */
  root: string;
  /** The Markdown files to check, relative to the root. */
  files: readonly string[];
  /** Reads a text file (absolute path). @default {Deno.readTextFile} */
  readTextFile?: (path: string) => Promise<string>;
  /** True when the path exists (absolute path). */
  exists?: (path: string) => Promise<boolean>;
}

/** Every relative link of `files` that does not resolve. */
export async function checkMarkdownLinks(options: CheckOptions): Promise<BrokenLink[]> {
  const read = options.readTextFile ?? Deno.readTextFile;
  const exists = options.exists ?? pathExists;
  const anchorsOf = new Map<string, Promise<Set<string>>>();
  const anchors = (path: string) => {
    if (!anchorsOf.has(path)) anchorsOf.set(path, read(path).then(headingAnchors));
    return anchorsOf.get(path)!;
  };
  const broken: BrokenLink[] = [];
  for (const file of options.files) {
    const source = options.root + file;
    for (const { line, target } of markdownLinks(await read(source))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, data:
      const fail = (reason: string) => broken.push({ file, line, target, reason });
      const hash = target.indexOf("#");
      const pathPart = hash < 0 ? target : target.slice(0, hash);
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      if (pathPart.startsWith("/")) {
        fail("absolute path: write it relative to the file");
        continue;
      }
      const resolved = pathPart === ""
        ? source
        : new URL(decodeURIComponent(pathPart), `file://${source}`).pathname;
      if (!resolved.startsWith(options.root)) {
        fail("points outside the repository");
        continue;
      }
      if (!await exists(resolved)) {
        fail("no such file or directory");
        continue;
      }
      if (anchor !== undefined && resolved.endsWith(".md")) {
        if (!(await anchors(resolved)).has(anchor)) fail(`no heading with anchor #${anchor}`);
      }
    }
  }
  return broken;
}

async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
