-- Only the SHA-256 hex digest of a key is stored; the key itself is shown once at creation.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  digest text NOT NULL UNIQUE CHECK (digest ~ '^[0-9a-f]{64}$'),
  subject text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 200),
  roles text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
