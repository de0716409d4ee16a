-- Up Migration
-- The pipeline's ledger: what reports and reruns read. Full account payloads live here (personal
-- data stays in Postgres, never in Temporal history).

create table migrate.runs (
  run_id text primary key,
  supplier_code text not null,
  dry_run boolean not null default false,
  source jsonb not null,
  selection jsonb not null,
  parent_run_id text references migrate.runs (run_id),
  concurrency integer not null,
  status text not null default 'running'
    check (status in ('running', 'paused', 'completed', 'cancelled', 'failed')),
  totals jsonb not null default '{}'::jsonb,
  started_at timestamptz not null default now(),
  finished_at timestamptz
);

create table migrate.account_attempts (
  run_id text not null references migrate.runs (run_id),
  external_account_number text not null,
  supplier_code text not null,
  dry_run boolean not null default false,
  workflow_id text not null,
  stage text not null default 'prepare',
  outcome text check (outcome in ('completed', 'failed', 'not_attempted')),
  outcome_source text,
  error_code text,
  error_attr text,
  platform_account_number text,
  scheduled_at timestamptz,
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (run_id, external_account_number)
);
create index account_attempts_open_by_account on migrate.account_attempts (external_account_number) where outcome is null;
create index account_attempts_run_outcome on migrate.account_attempts (run_id, outcome, error_code);
create index account_attempts_finished on migrate.account_attempts (run_id, finished_at);

create table migrate.account_payloads (
  run_id text not null,
  external_account_number text not null,
  request jsonb not null,
  documents jsonb not null default '[]'::jsonb,
  created_at timestamptz not null default now(),
  primary key (run_id, external_account_number),
  foreign key (run_id, external_account_number) references migrate.account_attempts (run_id, external_account_number) on delete cascade
);

create table migrate.account_errors (
  id bigserial primary key,
  run_id text not null,
  external_account_number text not null,
  stage text not null,
  code text not null,
  attr text not null default '',
  detail text not null default '',
  source_field text,
  created_at timestamptz not null default now(),
  foreign key (run_id, external_account_number) references migrate.account_attempts (run_id, external_account_number) on delete cascade
);
create index account_errors_by_account on migrate.account_errors (run_id, external_account_number);

create table migrate.documents_staged (
  run_id text not null,
  external_account_number text not null,
  object_key text not null,
  sha256 text not null,
  size_bytes bigint not null,
  action text not null check (action in ('uploaded', 'already_present')),
  staged_at timestamptz not null default now(),
  primary key (run_id, external_account_number, object_key)
);

create table migrate.supplier_status (
  supplier_code text primary key,
  status text not null check (status in ('ONGOING', 'PAUSED', 'COMPLETE')),
  document_root text not null,
  reason text,
  updated_by text not null default 'operator',
  updated_at timestamptz not null default now()
);

create table migrate.inbox (
  event_id text primary key,
  dedupe_key text not null unique,
  event_type text not null,
  payload_version text,
  external_identifier text,
  identifier text,
  error_code text,
  raw jsonb not null,
  received_via text not null check (received_via in ('webhook', 'sqs', 'test')),
  received_at timestamptz not null default now(),
  deliveries integer not null default 1,
  match_status text not null default 'pending'
    check (match_status in ('pending', 'matched', 'unmatched', 'ambiguous', 'late', 'unknown_type')),
  matched_workflow_id text,
  matched_run_id text,
  note text
);
create index inbox_by_account on migrate.inbox (external_identifier, received_at);

create table migrate.rejected_deliveries (
  id bigserial primary key,
  received_via text not null,
  reason text not null,
  body_sha256 text,
  body_bytes integer,
  remote_address text,
  received_at timestamptz not null default now()
);

-- Down Migration
drop table migrate.rejected_deliveries;
drop table migrate.inbox;
drop table migrate.supplier_status;
drop table migrate.documents_staged;
drop table migrate.account_errors;
drop table migrate.account_payloads;
drop table migrate.account_attempts;
drop table migrate.runs;
