// deno-lint-ignore-file no-console -- prints its URL for the benchmark that spawned it
/**
 * The floor of the image-proxy benchmark: the same S3 client as the proxy (`@aws-sdk/client-s3`
 * over the proxy's fetch handler) behind a bare `Deno.serve` that hands the storage body to the
 * server untouched, so Deno pipes it natively and no JavaScript sees a chunk. No stall bounds, no
 * validation, no limits: it shows what the SDK and the runtime cost, and so how much of the
 * proxy's gap to direct reads is its own relay.
 *
 * `deno run … passthrough_server.ts <s3-endpoint> <bucket> <listen>` prints `{"url": …}`.
 *
 * @module
 */
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { storageFetchHandler } from "../../../services/image-proxy/store/fetch_handler.ts";

const [endpoint, bucket, listen] = Deno.args;
const client = new S3Client({
  endpoint,
  forcePathStyle: true,
  region: "us-east-1",
  requestChecksumCalculation: "WHEN_REQUIRED",
  responseChecksumValidation: "WHEN_REQUIRED",
  requestHandler: storageFetchHandler({ timeoutMs: 30_000 }),
});
const [hostname, port] = listen.split(":");
Deno.serve({
  hostname,
  port: Number(port),
  onListen: () => console.log(JSON.stringify({ url: `http://${listen}` })),
}, async (req) => {
  const key = new URL(req.url).pathname.slice(1);
  if (key === "healthz") return new Response("ok");
  const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return new Response(out.Body!.transformToWebStream(), {
    headers: { "content-length": String(out.ContentLength) },
  });
});
