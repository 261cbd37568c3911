/**
 * Compares a baseline with the effective state Incus reports (read-only: GET only): every key of
 * a baseline project or profile config must have exactly that value live. Compatibility notices
 * (not failures): a server that is not Incus 6.x, and live `limits.*`/`security.*`/`raw.*` keys
 * the baseline does not mention.
 *
 * @module
 */
import { resourcePath } from "../incus/resource_path.ts";
import { IncusError, type IncusTransport } from "../incus/transport.ts";
import type { Baseline } from "./baseline.ts";

/** What the comparison found. */
export interface LiveReport {
  drift: string[];
  notices: string[];
}

const WATCHED = /^(limits\.|security\.|raw\.)|^restricted/;

/** Reads the live projects and profiles named by `baseline` and compares them. */
export async function compareLive(
  baseline: Baseline,
  client: Pick<IncusTransport, "call">,
  projectClient: (project: string) => Pick<IncusTransport, "call">,
): Promise<LiveReport> {
  const report: LiveReport = { drift: [], notices: [] };
  const server = (await client.call("read the server", "GET", "/1.0")).metadata as {
    environment?: { server_version?: string };
  };
  const version = server.environment?.server_version ?? "unknown";
  if (!/^6\./.test(version)) {
    report.notices.push(`Incus ${version} is not the 6.x series this policy was written for`);
  }
  for (const p of baseline.projects) {
    const live = await read(
      client,
      "read a project",
      resourcePath("projects", p.name),
    );
    if (!live) {
      report.drift.push(`project ${p.name} does not exist`);
      continue;
    }
    diff(`project ${p.name}`, p.config, live.config ?? {}, report);
    const scoped = projectClient(p.name);
    for (const f of p.profiles) {
      const where = `project ${p.name} profile ${f.name}`;
      const prof = await read(
        scoped,
        "read a profile",
        resourcePath("profiles", f.name),
      );
      if (!prof) report.drift.push(`${where} does not exist`);
      else diff(where, f.config, prof.config ?? {}, report);
    }
  }
  return report;
}

async function read(
  c: Pick<IncusTransport, "call">,
  what: string,
  path: string,
): Promise<{ config?: Record<string, string> } | undefined> {
  try {
    return (await c.call(what, "GET", path)).metadata as { config?: Record<string, string> };
  } catch (err) {
    if (err instanceof IncusError && err.status === 404) return undefined;
    throw err;
  }
}

function diff(
  where: string,
  want: Record<string, string>,
  live: Record<string, string>,
  report: LiveReport,
): void {
  for (const [k, v] of Object.entries(want)) {
    if (!(k in live)) report.drift.push(`${where}: ${k} is unset live (baseline ${v})`);
    else if (live[k] !== v) report.drift.push(`${where}: ${k} is ${live[k]} live (baseline ${v})`);
  }
  for (const k of Object.keys(live)) {
    if (!(k in want) && WATCHED.test(k)) {
      report.notices.push(`${where}: live ${k} is not in the baseline`);
    }
  }
}
