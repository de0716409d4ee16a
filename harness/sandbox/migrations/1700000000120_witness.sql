-- Up Migration
-- What the sandbox told clients and when they came back, so a chaos run can prove Retry-After was
-- honoured (kept in Postgres: the proof must survive a sandbox restart).
CREATE TABLE sandbox.retry_after_told (
  account_key text PRIMARY KEY,
  told_at timestamptz NOT NULL,
  retry_at timestamptz NOT NULL
);

-- A request about an account that arrived before the Retry-After it was given had passed.
CREATE TABLE sandbox.early_requests (
  seq bigserial PRIMARY KEY,
  account_key text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  told_at timestamptz NOT NULL,
  retry_at timestamptz NOT NULL,
  arrived_at timestamptz NOT NULL DEFAULT now()
);

-- Counters of what the request faults did (throttled, response_lost, client_gone_schedule).
CREATE TABLE sandbox.witness_counts (
  name text PRIMARY KEY,
  n bigint NOT NULL DEFAULT 0
);

ALTER TABLE sandbox.events ADD COLUMN late_ms integer NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE sandbox.events DROP COLUMN late_ms;
DROP TABLE sandbox.witness_counts;
DROP TABLE sandbox.early_requests;
DROP TABLE sandbox.retry_after_told;
