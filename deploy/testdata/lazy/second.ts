// Loaded on first use by first.ts.
export const SECOND = 2;
