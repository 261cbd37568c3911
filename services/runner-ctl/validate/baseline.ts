/**
 * The rendered baseline `runner-ctl validate` reads (version 1, JSON, unknown fields rejected):
 *
 * ```json
 * { "version": 1,
 *   "projects": [{
 *     "name": "runners",
 *     "config": { "restricted": "true", "limits.instances": "4", "limits.cpu": "8",
 *                 "limits.memory": "16GiB" },
 *     "profiles": [{ "name": "default",
 *                    "config": { "limits.cpu": "2", "limits.memory": "4GiB",
 *                                "security.secureboot": "true" } }] }] }
 * ```
 *
 * `config` maps hold the exact Incus config values the live project or profile must have.
 *
 * @module
 */

/** A profile of the baseline. */
export interface BaselineProfile {
  name: string;
  config: Record<string, string>;
}

/** A project of the baseline. */
export interface BaselineProject {
  name: string;
  config: Record<string, string>;
  profiles: BaselineProfile[];
}

/** The version 1 baseline. */
export interface Baseline {
  version: 1;
  projects: BaselineProject[];
}

/** Limit of the baseline file. */
export const BASELINE_LIMIT_BYTES = 1024 * 1024;

/**
 * Parses and shape-checks a baseline.
 *
 * @throws {Error} "Cannot read baseline: <where>" naming the field.
 */
export function parseBaseline(text: string): Baseline {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad("not JSON");
  }
  const root = object(v, "baseline", ["version", "projects"]);
  if (root.version !== 1) throw bad("version must be 1");
  const projects = list(root.projects, "projects").map((p, i) => {
    const o = object(p, `projects[${i}]`, ["name", "config", "profiles"]);
    return {
      name: name(o.name, `projects[${i}].name`),
      config: config(o.config, `projects[${i}].config`),
      profiles: list(o.profiles, `projects[${i}].profiles`).map((f, j) => {
        const where = `projects[${i}].profiles[${j}]`;
        const q = object(f, where, ["name", "config"]);
        return { name: name(q.name, `${where}.name`), config: config(q.config, `${where}.config`) };
      }),
    };
  });
  return { version: 1, projects };
}

function bad(why: string): Error {
  return new Error(`Cannot read baseline: ${why}`);
}

function object(v: unknown, where: string, keys: string[]): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw bad(`${where} is not an object`);
  }
  for (const k of Object.keys(v)) {
    if (!keys.includes(k)) throw bad(`${where} has unknown field ${k}`);
  }
  for (const k of keys) if (!Object.hasOwn(v, k)) throw bad(`${where} lacks ${k}`);
  return v as Record<string, unknown>;
}

function list(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) throw bad(`${where} is not an array`);
  return v;
}

function name(v: unknown, where: string): string {
  if (typeof v !== "string" || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/.test(v)) {
    throw bad(`${where} is not a valid name`);
  }
  return v;
}

function config(v: unknown, where: string): Record<string, string> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw bad(`${where} is not an object`);
  }
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== "string") throw bad(`${where}.${k} is not a string`);
  }
  return v as Record<string, string>;
}
