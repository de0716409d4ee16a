-- Up Migration
-- What the legacy system recorded for an account after a point in time: new notes, transactions,
-- statements and payment instructions, one row each, already keyed by the identifier the legacy
-- system gives the item (note id, transaction id, statement id, mandate reference).
CREATE TABLE legacy.account_changes (
  change_id       text PRIMARY KEY,
  account_number  text NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('note', 'transaction', 'statement', 'payment_instruction')),
  recorded_at     timestamptz NOT NULL,
  item            jsonb NOT NULL,
  -- For statements: the PDF under the source documents folder.
  document_path   text
);
CREATE INDEX account_changes_by_account ON legacy.account_changes (account_number, recorded_at);

-- Down Migration
DROP TABLE legacy.account_changes;
