// TEMPORARY stand-in for @svc/shared/settings (same API) until the kit lands on main.
export interface SettingSpec {
  name: string;
  type: "string" | "int" | "bool" | "duration" | "list" | "float";
  default: unknown;
  env?: string | string[];
  help: string;
  choices?: string[];
  min?: number;
  max?: number;
  secret?: boolean;
  validate?: (value: unknown) => string | undefined;
}
export class SettingsError extends Error {}
function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (!m) throw new RangeError("bad duration");
  return Number(m[1]) * { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2] as "s"];
}
function convert(spec: SettingSpec, raw: string): unknown {
  switch (spec.type) {
    case "int": {
      if (!/^-?\d+$/.test(raw)) throw new SettingsError(`--${spec.name}: expected an integer`);
      const n = Number(raw);
      if (spec.min !== undefined && n < spec.min) {
        throw new SettingsError(`--${spec.name}: below ${spec.min}`);
      }
      if (spec.max !== undefined && n > spec.max) {
        throw new SettingsError(`--${spec.name}: above ${spec.max}`);
      }
      return n;
    }
    case "float":
      return Number(raw);
    case "bool":
      if (!["true", "false", "1", "0"].includes(raw)) {
        throw new SettingsError(`--${spec.name}: expected true or false`);
      }
      return raw === "true" || raw === "1";
    case "duration":
      try {
        return parseDuration(raw);
      } catch {
        throw new SettingsError(`--${spec.name}: expected a duration`);
      }
    case "list":
      return raw.split(",").map((s) => s.trim()).filter(Boolean);
    default:
      if (spec.choices && !spec.choices.includes(raw)) {
        throw new SettingsError(`--${spec.name}: not one of ${spec.choices}`);
      }
      return raw;
  }
}
export function resolveSettings(
  specs: SettingSpec[],
  options: {
    args: string[];
    env: (name: string) => string | undefined;
    file?: Record<string, unknown>;
  },
): { values: Record<string, unknown>; sources: Record<string, string>; positionals: string[] } {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const flags = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < options.args.length; i++) {
    const arg = options.args[i];
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = byName.get(name);
    if (!spec) throw new SettingsError(`unknown flag --${name}`);
    if (eq >= 0) flags.set(name, arg.slice(eq + 1));
    else if (spec.type === "bool") flags.set(name, "true");
    else {
      if (i + 1 >= options.args.length) throw new SettingsError(`--${name}: missing value`);
      flags.set(name, options.args[++i]);
    }
  }
  const values: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  for (const spec of specs) {
    if (flags.has(spec.name)) {
      values[spec.name] = convert(spec, flags.get(spec.name)!);
      sources[spec.name] = "flag";
      continue;
    }
    const envs = spec.env === undefined ? [] : Array.isArray(spec.env) ? spec.env : [spec.env];
    const fromEnv = envs.map((e) => options.env(e)).find((v) => v !== undefined);
    if (fromEnv !== undefined) {
      values[spec.name] = convert(spec, fromEnv);
      sources[spec.name] = "env";
      continue;
    }
    values[spec.name] = spec.default;
    sources[spec.name] = "default";
  }
  return { values, sources, positionals };
}
