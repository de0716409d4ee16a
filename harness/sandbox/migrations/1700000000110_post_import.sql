-- Up Migration
-- Items sent to the v1 post-import endpoints after an account exists. No uniqueness here on purpose:
-- the platform deduplicates only by the rules the spec states (note body + created_at, transaction id
-- when `check_previously_added`, statement id, the active payment instruction); anything else a client
-- sends twice is created twice, and the ground truth shows it.
CREATE TABLE sandbox.post_import_items (
  id bigserial PRIMARY KEY,
  account_number text NOT NULL REFERENCES sandbox.accounts (number) ON DELETE CASCADE,
  resource_type text NOT NULL CHECK (resource_type IN ('NOTE', 'TRANSACTION', 'STATEMENT', 'PAYMENT_INSTRUCTION')),
  -- The client's own identifier of the item (note external_id, transaction_id, statement_id, reference).
  source_key text NOT NULL,
  -- What the platform deduplicates this kind by.
  dedupe_key text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX post_import_items_by_account ON sandbox.post_import_items (account_number, resource_type, dedupe_key);

-- Every request that reached a post-import endpoint for an existing account (repeats included).
CREATE TABLE sandbox.post_import_requests (
  account_number text NOT NULL REFERENCES sandbox.accounts (number) ON DELETE CASCADE,
  resource_type text NOT NULL,
  source_key text NOT NULL,
  request_count integer NOT NULL DEFAULT 0,
  PRIMARY KEY (account_number, resource_type, source_key)
);

-- Down Migration
DROP TABLE IF EXISTS sandbox.post_import_requests;
DROP TABLE IF EXISTS sandbox.post_import_items;
