// TEMPORARY stand-in for @svc/shared/log (same API) until the kit lands on main.
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}
export function createLogger(options: { write?: (line: string) => void } = {}): Logger {
  const write = options.write ?? (() => {});
  const make = (base: Record<string, unknown>): Logger => {
    const at = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
      write(JSON.stringify({ level, msg, ...base, ...fields }));
    return {
      debug: at("debug"),
      info: at("info"),
      warn: at("warn"),
      error: at("error"),
      child: (f) => make({ ...base, ...f }),
    };
  };
  return make({});
}
