-- Up Migration
-- Issue 15: reconciliation of created accounts, and changes carried over after import.

-- An account whose read-back differs from what was sent has its own outcome.
alter table migrate.account_attempts drop constraint account_attempts_outcome_check;
alter table migrate.account_attempts add constraint account_attempts_outcome_check
  check (outcome in ('completed', 'completed_with_differences', 'failed', 'not_attempted'));

-- The latest check of each account (the workflow's after `complete`, or `run reconcile`'s).
create table migrate.reconciliations (
  run_id text not null,
  external_account_number text not null,
  platform_account_number text not null,
  status text not null check (status in ('matched', 'differing', 'account_missing')),
  checked_fields integer not null,
  differing_fields integer not null,
  checked_by text not null check (checked_by in ('workflow', 'reconcile_command')),
  checked_at timestamptz not null default now(),
  primary key (run_id, external_account_number),
  foreign key (run_id, external_account_number) references migrate.account_attempts (run_id, external_account_number) on delete cascade
);

-- The differences of that check: values may be personal data, so they live here only.
create table migrate.reconciliation_differences (
  run_id text not null,
  external_account_number text not null,
  path text not null,
  field text not null,
  expected jsonb,
  found jsonb,
  primary key (run_id, external_account_number, path),
  foreign key (run_id, external_account_number) references migrate.reconciliations (run_id, external_account_number) on delete cascade
);
create index reconciliation_differences_field on migrate.reconciliation_differences (run_id, field);

-- Each change carried over after import, keyed by the identifier the platform's endpoint offers:
-- one row per item per account and supplier, whichever run or delta sends it (a second `run delta`
-- finds it here and sends nothing).
create table migrate.post_import_items (
  supplier_code text not null,
  external_account_number text not null,
  kind text not null check (kind in ('note', 'transaction', 'statement', 'payment_instruction')),
  item_key text not null,
  -- The run whose account this change belongs to, and the delta that sent it last.
  run_id text not null,
  delta_id text not null,
  -- The workflow sending it now: where the events router signals post_import.* events.
  workflow_id text,
  platform_account_number text not null,
  item jsonb not null,
  recorded_at timestamptz not null,
  status text not null default 'pending'
    check (status in ('pending', 'sending', 'sent', 'completed', 'post_import_failed')),
  attempts integer not null default 0,
  outcome_source text,
  error_code text,
  error_attr text,
  error_detail text,
  sent_at timestamptz,
  finished_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (supplier_code, external_account_number, kind, item_key)
);
create index post_import_items_by_run on migrate.post_import_items (run_id, status);
create index post_import_items_by_delta on migrate.post_import_items (delta_id, status);

-- Down Migration
drop table migrate.post_import_items;
drop table migrate.reconciliation_differences;
drop table migrate.reconciliations;
alter table migrate.account_attempts drop constraint account_attempts_outcome_check;
alter table migrate.account_attempts add constraint account_attempts_outcome_check
  check (outcome in ('completed', 'failed', 'not_attempted'));
