/**
 * Reads the packaged systemd unit: systemd's INI dialect, and the arguments `ExecStart` gives
 * the binary (so tests run the controller exactly as the unit starts it).
 *
 * @module
 */

/** Sections of a unit file: key → every value it is given (keys may repeat). */
export type Unit = Map<string, Map<string, string[]>>;

/** Parses systemd's INI dialect: sections, `Key=value` (repeatable), `#`/`;` comments. */
export function parseUnit(text: string): Unit {
  const unit: Unit = new Map();
  let section: Map<string, string[]> | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = new Map();
      unit.set(header[1], section);
      continue;
    }
    const eq = line.indexOf("=");
    if (!section || eq <= 0) throw new Error(`line outside a section or without '=': ${line}`);
    const key = line.slice(0, eq);
    section.set(key, [...(section.get(key) ?? []), line.slice(eq + 1)]);
  }
  return unit;
}

/**
 * The binary and the arguments of the unit's one `ExecStart` (plain words: the unit uses no
 * quoting or prefixes there; `%i`, a template unit's instance name, is replaced by `instance`,
 * which must then be given and be a plain name).
 */
export function execStart(unit: Unit, instance?: string): { binary: string; args: string[] } {
  const lines = unit.get("Service")?.get("ExecStart") ?? [];
  if (lines.length !== 1) throw new Error(`expected one ExecStart, found ${lines.length}`);
  let line = lines[0];
  if (instance !== undefined) {
    if (!/^[A-Za-z0-9_.-]+$/.test(instance)) throw new Error("not a plain instance name");
    line = line.replaceAll("%i", instance);
  }
  if (/["'%\\]|^[-@:+!]/.test(line)) throw new Error("ExecStart uses syntax not handled here");
  const [binary, ...args] = line.split(/\s+/);
  return { binary, args };
}
