/**
 * Puts a mirror's files into a bucket under a prefix.
 *
 * @module
 */
import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { MirrorFile } from "./mirror.ts";

/**
 * Uploads `files` to `bucket` under `prefix` (empty or ending in `/`).
 *
 * @example Usage
 * ```ts ignore
 * import { seedMirror } from "./seed.ts";
 * await seedMirror(client, { bucket: "mirror", prefix: "", files: await sampleMirror() });
 * ```
 */
export async function seedMirror(
  client: S3Client,
  options: { bucket: string; prefix: string; files: MirrorFile[] },
): Promise<void> {
  for (const file of options.files) {
    await client.send(
      new PutObjectCommand({
        Bucket: options.bucket,
        Key: options.prefix + file.path,
        Body: file.body,
        ContentType: file.contentType,
      }),
    );
  }
}
