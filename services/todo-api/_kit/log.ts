// TEMPORARY stand-in for @svc/shared/log (same API) until the kit lands on main.
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 };
export function createLogger(
  options: {
    level?: keyof typeof LEVELS;
    write?: (line: string) => void;
    fields?: Record<string, unknown>;
  } = {},
): Logger {
  const enc = new TextEncoder();
  const write = options.write ?? ((l: string) => Deno.stdout.writeSync(enc.encode(l + "\n")));
  const min = LEVELS[options.level ?? "info"];
  const make = (base: Record<string, unknown>): Logger => {
    const at = (level: keyof typeof LEVELS) => (msg: string, fields?: Record<string, unknown>) => {
      if (LEVELS[level] >= min) write(JSON.stringify({ level, msg, ...base, ...fields }));
    };
    return {
      debug: at("debug"),
      info: at("info"),
      warn: at("warn"),
      error: at("error"),
      child: (f) => make({ ...base, ...f }),
    };
  };
  return make(options.fields ?? {});
}
