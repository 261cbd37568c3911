/**
 * The flag section of `--help`, rendered from the normalized rows.
 *
 * @module
 */
import { formatDuration } from "../codec/duration.ts";
import type { SettingRow } from "./convert.ts";
import type { ConfigFileOptions } from "./define.ts";

/** Renders one block per setting: flag (or key) and type, help and default, then its sources. */
export function settingsHelpText(
  rows: readonly SettingRow[],
  options: {
    file?: ConfigFileOptions & { flag: string; env?: string };
    unsupported?: readonly SettingRow[];
  },
): string {
  const blocks: string[] = [];
  const { file } = options;
  if (file) {
    const def = file.defaultPath ? ` (default ${file.defaultPath}, optional)` : "";
    blocks.push(block(`--${file.flag} path`, `YAML configuration file${def}`, [
      ...(file.env ? [`env ${file.env}`] : []),
    ]));
  }
  for (const row of rows) {
    const { spec } = row;
    const type = spec.type === "string" && spec.choices ? spec.choices.join("|") : spec.type;
    const head = row.flag ? `--${row.flag} ${type}` : `${row.key} ${type} (no flag)`;
    const where = [
      ...(row.env.length ? [`env ${row.env.join(", ")}`] : []),
      ...(file ? [row.file ? `key ${row.key}` : "not read from the file"] : []),
    ];
    blocks.push(block(head, `${spec.help}${defaultOf(row)}`, where));
  }
  const retired = options.unsupported ?? [];
  if (retired.length) blocks.push("\nNot supported (refused when set):");
  for (const row of retired) {
    const head = row.flag ? `--${row.flag}` : row.key;
    blocks.push(block(head, row.spec.help, row.env.length ? [`env ${row.env.join(", ")}`] : []));
  }
  return blocks.join("\n");
}

function block(head: string, help: string, where: string[]): string {
  return [`  ${head}`, `      ${help}`, ...(where.length ? [`      ${where.join("; ")}`] : [])]
    .join("\n");
}

function defaultOf({ spec }: SettingRow): string {
  if (spec.required) return " (required)";
  if (spec.secret || spec.default === undefined) return "";
  const value = spec.default;
  if (spec.type === "duration") return ` (default ${formatDuration(value as number)})`;
  if (Array.isArray(value)) return ` (default ${value.length ? value.join(",") : "empty"})`;
  return ` (default ${typeof value === "string" ? JSON.stringify(value) : String(value)})`;
}
