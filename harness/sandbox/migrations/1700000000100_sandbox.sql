-- Up Migration
CREATE SCHEMA IF NOT EXISTS sandbox;

CREATE TABLE sandbox.import_suppliers (
  code text PRIMARY KEY,
  document_root text NOT NULL,
  status text NOT NULL CHECK (status IN ('ONGOING', 'PAUSED', 'COMPLETE')),
  created_at timestamptz NOT NULL DEFAULT now(),
  modified_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sandbox.import_processes (
  id bigserial PRIMARY KEY,
  import_supplier text NOT NULL,
  external_identifier text NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'IN_PROGRESS', 'PROCESSED', 'ERRORED', 'CANCELLED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED')),
  is_dry_run boolean NOT NULL,
  payload jsonb NOT NULL,
  schedule_window_start timestamptz NOT NULL,
  schedule_window_end timestamptz NOT NULL,
  due_at timestamptz NOT NULL,
  lease_until timestamptz,
  kraken_identifier text,
  latest_event text NOT NULL,
  latest_event_at timestamptz NOT NULL DEFAULT now(),
  latest_error jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  modified_at timestamptz NOT NULL DEFAULT now()
);
-- The platform keeps one live import per account: a second schedule while one is pending is answered
-- with the existing one; after ERRORED / CANCELLED a new one may start.
CREATE UNIQUE INDEX import_processes_one_live ON sandbox.import_processes (import_supplier, external_identifier)
  WHERE status IN ('PENDING', 'IN_PROGRESS');
CREATE INDEX import_processes_latest ON sandbox.import_processes (import_supplier, external_identifier, id DESC);
CREATE INDEX import_processes_due ON sandbox.import_processes (due_at) WHERE status IN ('PENDING', 'IN_PROGRESS');

CREATE TABLE sandbox.accounts (
  number text PRIMARY KEY,
  import_supplier text NOT NULL,
  external_identifier text NOT NULL,
  import_process_id bigint NOT NULL REFERENCES sandbox.import_processes (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- The duplicate guard: one account per import supplier and external account number.
  UNIQUE (import_supplier, external_identifier)
);

CREATE TABLE sandbox.schedule_counts (
  import_supplier text NOT NULL,
  external_identifier text NOT NULL,
  schedule_accepted_count integer NOT NULL DEFAULT 0,
  PRIMARY KEY (import_supplier, external_identifier)
);

CREATE TABLE sandbox.events (
  seq bigserial PRIMARY KEY,
  id uuid NOT NULL,
  type text NOT NULL,
  import_process_id bigint,
  import_supplier text,
  external_identifier text NOT NULL,
  -- The exact JSON sent (text, not jsonb, so key order and the signed bytes are kept).
  body text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'dropped', 'failed', 'no_target')),
  dropped boolean NOT NULL DEFAULT false,
  duplicated boolean NOT NULL DEFAULT false,
  pending_targets text[] NOT NULL DEFAULT '{}',
  delivered_to text[] NOT NULL DEFAULT '{}',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_due ON sandbox.events (next_attempt_at) WHERE status = 'pending';

CREATE TABLE sandbox.forced_outcomes (
  external_identifier text PRIMARY KEY,
  spec jsonb NOT NULL,
  remaining integer,
  modified_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE IF EXISTS sandbox.forced_outcomes;
DROP TABLE IF EXISTS sandbox.events;
DROP TABLE IF EXISTS sandbox.schedule_counts;
DROP TABLE IF EXISTS sandbox.accounts;
DROP TABLE IF EXISTS sandbox.import_processes;
DROP TABLE IF EXISTS sandbox.import_suppliers;
