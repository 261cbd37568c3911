/**
 * The client's IP address: the first entry of `trustedHeader` when configured and present (a
 * proxy the operator trusts sets it), otherwise the TCP peer address.
 *
 * @example Usage
 * ```ts
 * import { clientIp, localInfo } from "@svc/shared/http";
 * clientIp(new Request("http://x"), localInfo(), { trustedHeader: "X-Real-IP" }); // "127.0.0.1"
 * ```
 */
export function clientIp(
  req: Request,
  info: Deno.ServeHandlerInfo,
  options: { trustedHeader?: string } = {},
): string {
  if (options.trustedHeader) {
    const value = req.headers.get(options.trustedHeader);
    const first = value?.split(",")[0].trim();
    if (first) return first;
  }
  const addr = info.remoteAddr as Deno.Addr;
  return "hostname" in addr ? addr.hostname : "unix";
}
