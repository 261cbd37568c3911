import assert from "node:assert/strict";
import {
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { S3RVER_CREDENTIALS, startS3Server } from "./s3_server.ts";

// The end-to-end tests trust that this server checks SigV4: a proxy signing wrongly must be
// refused, not served. Prove it against the server itself.
Deno.test("the local S3 server checks SigV4 signatures", async (t) => {
  const s3 = await startS3Server({ buckets: ["b"] });
  const clientWith = (credentials: { accessKeyId: string; secretAccessKey: string }) =>
    new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, region: "us-east-1", credentials });
  const good = clientWith(S3RVER_CREDENTIALS);
  try {
    await t.step("a correctly signed PUT and GET succeed", async () => {
      await good.send(new PutObjectCommand({ Bucket: "b", Key: "k", Body: "hello" }));
      const got = await good.send(new GetObjectCommand({ Bucket: "b", Key: "k" }));
      assert.equal(await got.Body?.transformToString(), "hello");
    });

    for (
      const [name, credentials, code] of [
        [
          "a wrong secret",
          { ...S3RVER_CREDENTIALS, secretAccessKey: "wrong" },
          "SignatureDoesNotMatch",
        ],
        [
          "an unknown access key",
          { ...S3RVER_CREDENTIALS, accessKeyId: "NOBODY" },
          "InvalidAccessKeyId",
        ],
      ] as const
    ) {
      await t.step(`a request signed with ${name} is refused with 403 ${code}`, async () => {
        const bad = clientWith(credentials);
        try {
          for (
            const command of [
              new GetObjectCommand({ Bucket: "b", Key: "k" }),
              new PutObjectCommand({ Bucket: "b", Key: "k", Body: "overwritten" }),
            ]
          ) {
            const error = await bad.send(command as GetObjectCommand).then(
              () => assert.fail("the request was served"),
              (e: unknown) => e,
            );
            assert.ok(error instanceof S3ServiceException, String(error));
            assert.equal(error.$metadata.httpStatusCode, 403);
            assert.equal(error.name, code);
          }
        } finally {
          bad.destroy();
        }
      });
    }

    await t.step("the refused PUT left the object unchanged", async () => {
      const got = await good.send(new GetObjectCommand({ Bucket: "b", Key: "k" }));
      assert.equal(await got.Body?.transformToString(), "hello");
    });

    await t.step("a forged Authorization header is refused", async () => {
      const res = await fetch(`${s3.endpoint}/b/k`, {
        headers: {
          authorization: "AWS4-HMAC-SHA256 Credential=S3RVER/20260101/us-east-1/s3/aws4_request, " +
            "SignedHeaders=host;x-amz-date, Signature=" + "0".repeat(64),
          "x-amz-date": new Date().toISOString().replace(/[-:]|\.\d{3}/g, ""),
          "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
        },
      });
      assert.equal(res.status, 403);
      assert.match(await res.text(), /<Code>SignatureDoesNotMatch<\/Code>/);
    });
  } finally {
    good.destroy();
    await s3.close();
  }
});

Deno.test("the local S3 server on a taken port: one line saying so, not its stack trace", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  try {
    await assert.rejects(startS3Server({ buckets: ["b"], port }), (err: Error) => {
      assert.equal(
        err.message,
        `Cannot start the S3 server: Cannot listen on 127.0.0.1:${port}: the address is ` +
          "already in use",
      );
      return true;
    });
  } finally {
    taken.close();
  }
});

// s3rver_process.ts says why: a `"bin": true` on this entry makes every deno process of the
// workspace print a warning about the bin the package does not ship, at every start.
Deno.test("deno.lock pins the S3 server package, without the bin flag it does not honour", async () => {
  const root = new URL("../../../", import.meta.url);
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const specifier = config.imports["@20minutes/s3rver"];
  assert.match(specifier, /^npm:@20minutes\/s3rver@\d+\.\d+\.\d+$/);
  const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", root)));
  const version = lock.specifiers[specifier];
  assert.ok(version, `deno.lock resolves ${specifier}`);
  const entry = lock.npm[`@20minutes/s3rver@${version}`];
  assert.ok(entry?.integrity, "deno.lock holds the package with its integrity");
  assert.equal(
    entry.bin,
    undefined,
    `remove the line "bin": true of "@20minutes/s3rver@${version}" in deno.lock (a lock update ` +
      "put it back; see deploy/dev/image-proxy/s3rver_process.ts)",
  );
});
