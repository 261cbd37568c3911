DROP INDEX api_keys_created_at_id_idx;
ALTER TABLE api_keys DROP COLUMN expires_at;
