/**
 * Compact-JSON byte size and value depth of converted values (bigints count as their digits),
 * as the value budgets measure them.
 * @module
 */

const enc = new TextEncoder();

/** UTF-8 bytes of the compact JSON encoding of `value` (bigints as exact digits). */
export function jsonByteLength(value: unknown): number {
  return enc.encode(
    JSON.stringify(value, (_key, item) => (typeof item === "bigint" ? Number(0) : item)) ?? "null",
  ).length + bigintExtra(value);
}

function bigintExtra(value: unknown): number {
  if (typeof value === "bigint") return value.toString().length - 1;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + bigintExtra(item), 0);
  if (value && typeof value === "object") {
    return Object.values(value).reduce((sum: number, item) => sum + bigintExtra(item), 0);
  }
  return 0;
}

/** Depth of a value: a scalar or null is 1; each array or object adds one. */
export function valueDepth(value: unknown): number {
  if (Array.isArray(value)) {
    return 1 + value.reduce((deepest: number, item) => Math.max(deepest, valueDepth(item)), 0);
  }
  if (value && typeof value === "object") {
    return 1 +
      Object.values(value).reduce(
        (deepest: number, item) => Math.max(deepest, valueDepth(item)),
        0,
      );
  }
  return 1;
}

/** JSON text of a value with bigints written as exact integers. */
export function toJsonText(value: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(value, (_key, item) => {
    if (typeof item !== "bigint") return item;
    marks.push(item.toString());
    return `\u0000big${marks.length - 1}\u0000`;
  });
  return text.replace(/"\\u0000big(\d+)\\u0000"/g, (_mark, index) => marks[Number(index)]);
}
