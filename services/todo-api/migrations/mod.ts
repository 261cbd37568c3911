/**
 * The migration files, imported as text so they are part of the module graph: `deno compile`
 * embeds them and the service needs no file-system permission to read them. Add both files of a
 * new migration here; migration_files_test.ts fails when this list and the directory disagree.
 * @module
 */
import up1 from "./000001_create_todos.up.sql" with { type: "text" };
import down1 from "./000001_create_todos.down.sql" with { type: "text" };
import up2 from "./000002_create_api_keys.up.sql" with { type: "text" };
import down2 from "./000002_create_api_keys.down.sql" with { type: "text" };
import up3 from "./000003_create_server_secrets.up.sql" with { type: "text" };
import down3 from "./000003_create_server_secrets.down.sql" with { type: "text" };
import up4 from "./000004_add_api_key_expiry.up.sql" with { type: "text" };
import down4 from "./000004_add_api_key_expiry.down.sql" with { type: "text" };

/** File name → SQL text. */
export const MIGRATION_FILES: Readonly<Record<string, string>> = {
  "000001_create_todos.up.sql": up1,
  "000001_create_todos.down.sql": down1,
  "000002_create_api_keys.up.sql": up2,
  "000002_create_api_keys.down.sql": down2,
  "000003_create_server_secrets.up.sql": up3,
  "000003_create_server_secrets.down.sql": down3,
  "000004_add_api_key_expiry.up.sql": up4,
  "000004_add_api_key_expiry.down.sql": down4,
};
