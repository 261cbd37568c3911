/**
 * Entry of one signing worker of the WebCrypto pool (`webcrypto_pool.ts`): imports the private
 * keys it is sent and signs with them, so RSA work runs beside the event loop, not on it. It has
 * no imports: `deno compile` embeds it with `--include` (see `deploy/services.ts`).
 *
 * @module
 */

/** Messages the pool sends. */
export type PoolMessage =
  | {
    op: "key";
    key: number;
    pkcs8: ArrayBuffer;
    importParams: RsaHashedImportParams | EcKeyImportParams | { name: "Ed25519" };
    signParams: AlgorithmIdentifier | RsaPssParams | EcdsaParams;
  }
  | { op: "sign"; id: number; key: number; data: Uint8Array }
  /** Answered with an empty signature once the worker runs. */
  | { op: "ping"; id: number };

/** Messages the worker answers with. */
export type WorkerMessage = { id: number; signature: ArrayBuffer } | { id: number; error: string };

interface WorkerKey {
  key: Promise<CryptoKey>;
  signParams: AlgorithmIdentifier | RsaPssParams | EcdsaParams;
}

const keys = new Map<number, WorkerKey>();
const scope = self as unknown as {
  onmessage: (event: MessageEvent<PoolMessage>) => void;
  postMessage(message: WorkerMessage, transfer?: Transferable[]): void;
};

async function sign(id: number, keyId: number, data: Uint8Array): Promise<void> {
  try {
    const entry = keys.get(keyId);
    if (!entry) throw new Error(`Cannot sign: key ${keyId} is unknown to this worker`);
    const signature = await crypto.subtle.sign(
      entry.signParams,
      await entry.key,
      data as BufferSource,
    );
    scope.postMessage({ id, signature }, [signature]);
  } catch (err) {
    scope.postMessage({ id, error: (err as Error).message ?? String(err) });
  }
}

scope.onmessage = ({ data: message }) => {
  if (message.op === "key") {
    const key = crypto.subtle.importKey("pkcs8", message.pkcs8, message.importParams, false, [
      "sign",
    ]);
    key.catch(() => {}); // reported by the sign that needs it
    keys.set(message.key, { key, signParams: message.signParams });
  } else if (message.op === "sign") {
    sign(message.id, message.key, message.data);
  } else {
    scope.postMessage({ id: message.id, signature: new ArrayBuffer(0) });
  }
};
