/**
 * The `grant_type` values the token endpoint accepts, in the order discovery advertises them.
 * The names alone, apart from their handlers (`token.ts`, a module per grant), so registration
 * checks and discovery do not load the grants (`token_test.ts` holds the two lists together).
 *
 * @module
 */

/** Every `grant_type` the token endpoint accepts. */
export const GRANT_TYPES: readonly string[] = [
  "authorization_code",
  "refresh_token",
  "client_credentials",
  "password",
  "urn:ietf:params:oauth:grant-type:jwt-bearer",
  "urn:ietf:params:oauth:grant-type:token-exchange",
  "urn:ietf:params:oauth:grant-type:device_code",
];
