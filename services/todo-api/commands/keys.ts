/**
 * `keys create --subject S --role R [--expires-at T] | keys list | keys revoke <id>` on the
 * database. The key is printed once, on stdout alone so scripts can capture it; only its digest
 * is stored. (`keys_api.ts` runs the same commands through a running server's API.)
 * @module
 */
import { type ApiKeyRecord, createApiKeyStore, keyStatus } from "../auth/api_keys.ts";
import { POLICY } from "../auth/policy.ts";
import type { Settings } from "../settings.ts";
import type { Db } from "../store/db.ts";
import { type CliIo, explainDbError } from "./io.ts";

const KNOWN_ROLES = new Set(Object.values(POLICY).flat());

/** The `keys list` table: id, subject, roles, created, status, digest prefix; never the key. */
export function printKeys(records: ApiKeyRecord[], io: CliIo, nowMs: number): void {
  io.out(["ID", "SUBJECT", "ROLES", "CREATED", "STATUS", "DIGEST"].join("\t"));
  for (const k of records) {
    const status = keyStatus(k, nowMs);
    io.out(
      [
        k.id,
        k.subject,
        k.roles.join(","),
        k.createdAt,
        status === "revoked"
          ? `revoked ${k.revokedAt}`
          : status === "expired"
          ? `expired ${k.expiresAt}`
          : k.expiresAt
          ? `active until ${k.expiresAt}`
          : "active",
        `${k.digestPrefix}…`,
      ].join("\t"),
    );
  }
}

/** Runs a keys subcommand on an open database; returns the exit code. */
export async function keysCommand(
  db: Db,
  args: string[],
  options: { settings: Settings; io: CliIo },
): Promise<number> {
  const { settings, io } = options;
  const keys = createApiKeyStore(db);
  try {
    switch (args[0]) {
      case "create": {
        if (settings.subject === "" || settings.roles.length === 0) {
          io.err("usage: keys create --subject S --role user|admin");
          return 2;
        }
        let expiresAt: string | undefined;
        if (settings.expiresAt !== "") {
          const at = Date.parse(settings.expiresAt);
          if (Number.isNaN(at) || at <= Date.now()) {
            io.err("keys create: --expires-at must be a future RFC 3339 time");
            return 2;
          }
          expiresAt = new Date(at).toISOString();
        }
        const { key, id } = await keys.create({
          subject: settings.subject,
          roles: settings.roles,
          expiresAt,
        });
        const inert = settings.roles.filter((r) => !KNOWN_ROLES.has(r));
        if (inert.length > 0) {
          io.err(`warning: role(s) ${inert.join(",")} grant no action (known: user, admin)`);
        }
        io.out(key);
        io.err(
          `created key ${id} for ${settings.subject} (${settings.roles.join(",")}); ` +
            "it is shown only now: store it safely",
        );
        return 0;
      }
      case "list": {
        printKeys(await keys.list(), io, Date.now());
        return 0;
      }
      case "revoke": {
        if (!args[1]) {
          io.err("usage: keys revoke <id>");
          return 2;
        }
        if ((await keys.revoke(args[1]))?.changed) {
          io.out(`revoked ${args[1]}`);
          return 0;
        }
        io.err(`keys revoke: no active key with id ${args[1]}`);
        return 1;
      }
      default:
        io.err("usage: keys create --subject S --role R | keys list | keys revoke <id>");
        return 2;
    }
  } catch (err) {
    if (err instanceof RangeError) {
      io.err(err.message);
      return 2;
    }
    io.err(`keys ${args[0]}: ${explainDbError(err)}`);
    return 1;
  }
}
