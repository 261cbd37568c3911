/** Shared service kit. @module */
export {};
