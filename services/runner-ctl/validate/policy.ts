/**
 * The policy embedded in `runner-ctl validate`: what every baseline must say before it is
 * compared with the host.
 *
 * - At least one project; project and profile names unique.
 * - Each project: `restricted` is `"true"`, and resource ceilings `limits.instances`,
 *   `limits.cpu` (whole CPUs) and `limits.memory` (a size) are set and positive.
 * - Each profile: `limits.cpu` and `limits.memory` set, each no larger than its project's
 *   ceiling; `security.secureboot` is `"true"`; `security.privileged` is not `"true"`; no
 *   `raw.*` key (raw.qemu, raw.lxc, raw.apparmor, raw.idmap, raw.seccomp) is present.
 *
 * @module
 */
import type { Baseline } from "./baseline.ts";

const UNITS: Record<string, number> = {
  "": 1,
  B: 1,
  kB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
};

/** Bytes of an Incus size (`4GiB`, `512MB`, `1073741824`), or undefined. */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+)(B|kB|MB|GB|TB|KiB|MiB|GiB|TiB)?$/.exec(text);
  return m ? Number(m[1]) * UNITS[m[2] ?? ""] : undefined;
}

function wholeCpus(text: string | undefined): number | undefined {
  return text !== undefined && /^[1-9]\d{0,5}$/.test(text) ? Number(text) : undefined;
}

/** Every policy violation of `baseline` (empty: the baseline passes). */
export function policyViolations(baseline: Baseline): string[] {
  const out: string[] = [];
  if (baseline.projects.length === 0) out.push("baseline names no project");
  const projectNames = new Set<string>();
  for (const p of baseline.projects) {
    if (projectNames.has(p.name)) out.push(`project ${p.name} is listed twice`);
    projectNames.add(p.name);
    const at = `project ${p.name}`;
    if (p.config["restricted"] !== "true") out.push(`${at}: restricted must be "true"`);
    const instances = wholeCpus(p.config["limits.instances"]);
    const cpu = wholeCpus(p.config["limits.cpu"]);
    const memory = parseSize(p.config["limits.memory"] ?? "");
    if (!instances) out.push(`${at}: limits.instances must be a positive integer`);
    if (!cpu) out.push(`${at}: limits.cpu must be a positive whole number of CPUs`);
    if (!memory) out.push(`${at}: limits.memory must be a positive size`);
    const profileNames = new Set<string>();
    for (const f of p.profiles) {
      const where = `${at} profile ${f.name}`;
      if (profileNames.has(f.name)) out.push(`${where} is listed twice`);
      profileNames.add(f.name);
      const fCpu = wholeCpus(f.config["limits.cpu"]);
      const fMemory = parseSize(f.config["limits.memory"] ?? "");
      if (!fCpu) out.push(`${where}: limits.cpu must be a positive whole number of CPUs`);
      else if (cpu && fCpu > cpu) out.push(`${where}: limits.cpu exceeds the project ceiling`);
      if (!fMemory) out.push(`${where}: limits.memory must be a positive size`);
      else if (memory && fMemory > memory) {
        out.push(`${where}: limits.memory exceeds the project ceiling`);
      }
      if (f.config["security.secureboot"] !== "true") {
        out.push(`${where}: security.secureboot must be "true"`);
      }
      if (f.config["security.privileged"] === "true") {
        out.push(`${where}: security.privileged must not be "true"`);
      }
      for (const k of Object.keys(f.config)) {
        if (k.startsWith("raw.")) out.push(`${where}: ${k} is not allowed`);
      }
    }
  }
  return out;
}
