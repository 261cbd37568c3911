/** The shape every service handler and wrapper shares: `Deno.serve`'s handler. */
export type Handler = (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;

/** A stand-in `ServeHandlerInfo` for handlers called in process (tests, internal dispatch). */
export function localInfo(hostname = "127.0.0.1"): Deno.ServeHandlerInfo {
  return {
    remoteAddr: { transport: "tcp", hostname, port: 0 },
    completed: Promise.resolve(),
  };
}
