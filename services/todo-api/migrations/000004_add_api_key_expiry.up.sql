-- Keys may expire; `/v1/keys` lists them oldest first by keyset on (created_at, id).
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
CREATE INDEX api_keys_created_at_id_idx ON api_keys (created_at, id);
