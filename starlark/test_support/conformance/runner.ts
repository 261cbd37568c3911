/** Runs starlark-go's test files in place against this interpreter; reports per chunk. */
import { EvalError, StarlarkError } from "../../errors.ts";
import { compileSource, execProgram } from "../../eval/exec.ts";
import { makeJsonModule } from "../../lib/json.ts";
import { parseFile } from "../../syntax/parser.ts";
import { resolveFile } from "../../syntax/resolver.ts";
import { Thread } from "../../thread.ts";
import { utf8Decode } from "../../values/bytes_text.ts";
import { type Chunk, readChunks } from "./chunks.ts";
import { PATCHES } from "./patches.ts";
import { makeLoader, type Reported, testPredeclared } from "./test_env.ts";

export interface ChunkResult {
  index: number;
  line: number;
  status: "passed" | "skipped" | "failed";
  reason?: string;
}

export interface FileReport {
  file: string;
  chunks: ChunkResult[];
}

const EXCLUDED_OPTIONS = [
  "while",
  "recursion",
  "globalreassign",
  "toplevelcontrol",
  "loadbindsglobally",
];

function skipReason(src: string, evalFile: boolean): string | undefined {
  for (const o of EXCLUDED_OPTIONS) {
    if (src.includes(`option:${o}`)) return `needs option:${o} (excluded by dialect)`;
  }
  if (src.includes("option:set") && !evalFile) return "needs option:set (set excluded by dialect)";
  if (evalFile && /\bset\(/.test(src.replace(/#.*$/gm, ""))) {
    return "uses set (excluded by dialect)";
  }
  if (evalFile && /\bload\(\s*["'](?!assert\.star|json\.star)/.test(src)) {
    return "loads another module (load excluded)";
  }
  if (evalFile && /^\s*while\b/m.test(src)) return "uses while (excluded by dialect)";
  return undefined;
}

function applyPatches(rel: string, text: string): string {
  const lines = text.split("\n");
  for (const p of PATCHES) {
    if (p.file !== rel) continue;
    const i = p.line - 1;
    if (!lines[i]?.includes(p.from)) {
      throw new Error(`patch ${rel}:${p.line} does not apply (${p.reason})`);
    }
    lines[i] = p.to === null ? "" : lines[i].replace(p.from, p.to);
  }
  return lines.join("\n");
}

function match(chunk: Chunk, line: number, msg: string): string | undefined {
  const e = chunk.expectations.find((x) => x.line === line && !x.fired);
  if (!e) return `unexpected error at line ${line}: ${msg}`;
  e.fired = true;
  if (!e.pattern.test(msg)) return `line ${line}: error "${msg}" does not match /${e.source}/`;
  return undefined;
}

function unfired(chunk: Chunk): string[] {
  return chunk.expectations.filter((x) => !x.fired).map((x) =>
    `line ${x.line}: expected error /${x.source}/ did not occur`
  );
}

/** An eval test file: run each chunk as a module with the assert module loadable. */
export function runEvalFile(root: string, rel: string): FileReport {
  const path = `${root}/${rel}`;
  const text = applyPatches(rel, Deno.readTextFileSync(path));
  const chunks = readChunks(text);
  const results = chunks.map((chunk, index): ChunkResult => {
    const base = { index, line: chunk.firstLine };
    const skip = skipReason(chunk.source, true);
    if (skip) return { ...base, status: "skipped", reason: skip };
    const problems: string[] = [];
    const reported: Reported[] = [];
    const th = new Thread({ maxSteps: 50_000_000, timeoutMs: 20_000 });
    th.predeclared = testPredeclared(makeJsonModule());
    th.loader = makeLoader(root, th, path, reported);
    let program;
    try {
      program = compileSource(chunk.source, {
        filename: path,
        predeclared: th.predeclared.keys(),
        allowLoad: true,
      });
    } catch (e) {
      if (!(e instanceof StarlarkError)) throw e;
      problems.push(`static error: ${e.message}`);
    }
    if (program) {
      try {
        execProgram(program, th);
      } catch (e) {
        if (!(e instanceof EvalError)) throw e;
        const frame = e.frames.find((f) => f.filename === path);
        const msg = utf8Decode(e.message);
        if (!frame) problems.push(`error outside test file: ${msg}`);
        else {
          const p = match(chunk, frame.line, msg);
          if (p) problems.push(p);
        }
      }
    }
    for (const r of reported) problems.push(`line ${r.line}: ${r.msg}`);
    problems.push(...unfired(chunk));
    return problems.length
      ? { ...base, status: "failed", reason: problems.join("; ") }
      : { ...base, status: "passed" };
  });
  return { file: rel, chunks: results };
}

/** resolve.star: parse + resolve each chunk; every resolver error must be expected. */
export function runResolveFile(root: string, rel: string): FileReport {
  const path = `${root}/${rel}`;
  const chunks = readChunks(Deno.readTextFileSync(path));
  const results = chunks.map((chunk, index): ChunkResult => {
    const base = { index, line: chunk.firstLine };
    const skip = skipReason(chunk.source, false);
    if (skip) return { ...base, status: "skipped", reason: skip };
    const problems: string[] = [];
    try {
      const file = parseFile(chunk.source, path);
      const errs = resolveFile(file, {
        isPredeclared: (n) => n === "M",
        isUniversal: (n) => n === "U" || n === "float",
        allowLoad: true,
      });
      for (const e of errs) {
        const p = match(chunk, e.line, e.msg);
        if (p) problems.push(p);
      }
    } catch (e) {
      if (!(e instanceof StarlarkError)) throw e;
      problems.push(`parse error: ${e.message}`);
    }
    problems.push(...unfired(chunk));
    return problems.length
      ? { ...base, status: "failed", reason: problems.join("; ") }
      : { ...base, status: "passed" };
  });
  return { file: rel, chunks: results };
}

/** errors.star: parse each chunk; the first syntax error must be expected. */
export function runParseFile(root: string, rel: string): FileReport {
  const path = `${root}/${rel}`;
  const chunks = readChunks(Deno.readTextFileSync(path));
  const results = chunks.map((chunk, index): ChunkResult => {
    const base = { index, line: chunk.firstLine };
    const problems: string[] = [];
    try {
      parseFile(chunk.source, path);
    } catch (e) {
      if (!(e instanceof StarlarkError)) throw e;
      const p = match(chunk, e.line, e.msg);
      if (p) problems.push(p);
    }
    problems.push(...unfired(chunk));
    return problems.length
      ? { ...base, status: "failed", reason: problems.join("; ") }
      : { ...base, status: "passed" };
  });
  return { file: rel, chunks: results };
}

/** scan.star: a large real-world file that must parse without error. */
export function runScanSmoke(root: string, rel: string): FileReport {
  const path = `${root}/${rel}`;
  try {
    parseFile(Deno.readTextFileSync(path), path);
    return { file: rel, chunks: [{ index: 0, line: 1, status: "passed" }] };
  } catch (e) {
    return { file: rel, chunks: [{ index: 0, line: 1, status: "failed", reason: String(e) }] };
  }
}
