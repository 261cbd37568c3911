-- Server-generated secrets shared by every replica (the cursor HMAC key). A row is created by the
-- first server that needs it, so all replicas on one database sign cursors alike.
CREATE TABLE server_secrets (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
