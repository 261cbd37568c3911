-- Todos belong to the subject of the API key that created them.
CREATE TABLE todos (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner text NOT NULL,
  title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'completed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  CHECK ((status = 'completed') = (completed_at IS NOT NULL))
);

-- Keyset pagination seeks on (created_at, id): one index for admins (all todos), one per owner.
CREATE INDEX todos_created_at_id_idx ON todos (created_at, id);
CREATE INDEX todos_owner_created_at_id_idx ON todos (owner, created_at, id);
