-- Up Migration
-- Per-run summaries of recorded outcomes (docs/throughput.md, "Operator answers at a million rows"):
-- `run status`, `report` and the watch line read a few hundred counter rows instead of counting a
-- run's million attempts. Kept by triggers on migrate.account_attempts, so every writer (the
-- pipeline's recordOutcome and insertNotAttempted, `db seed-ledger`, a test's own insert) keeps
-- them exact, in the same transaction as the row it counts. Only finished attempts are counted:
-- an outcome is set once, so each account moves a counter once, never on every stage change;
-- accounts still in progress are few (the run's concurrency) and counted from a partial index.

-- Finished attempts of a run by outcome, stage, code and how the outcome was learnt ('' for none:
-- a primary key column cannot be null).
create table migrate.run_outcome_counts (
  run_id text not null references migrate.runs (run_id) on delete cascade,
  outcome text not null,
  stage text not null,
  error_code text not null,
  outcome_source text not null,
  n bigint not null default 0,
  primary key (run_id, outcome, stage, error_code, outcome_source)
);

-- Finished attempts of a run per minute of finishing (the report's throughput chart).
create table migrate.run_finish_minutes (
  run_id text not null references migrate.runs (run_id) on delete cascade,
  minute timestamptz not null,
  n bigint not null default 0,
  primary key (run_id, minute)
);

-- Accounts in progress by stage: few at any time, counted from this index alone.
create index account_attempts_open_by_run on migrate.account_attempts (run_id, stage) where outcome is null;
-- `run reconcile`'s selection (and --list): a run's completed accounts by number, index-only.
create index account_attempts_reconcilable on migrate.account_attempts (run_id, external_account_number)
  include (platform_account_number, supplier_code)
  where outcome in ('completed', 'completed_with_differences') and not dry_run and platform_account_number is not null;

-- Inserts and deletes: one statement trigger each (a bulk insert of a million rows is one upsert per
-- counter, not a million). Transition tables name one event per trigger.
create function migrate.run_outcome_counts_insert() returns trigger language plpgsql as $$
begin
  insert into migrate.run_outcome_counts as t (run_id, outcome, stage, error_code, outcome_source, n)
  select run_id, outcome, stage, coalesce(error_code, ''), coalesce(outcome_source, ''), count(*)
    from new_rows where outcome is not null
   group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
  on conflict (run_id, outcome, stage, error_code, outcome_source) do update set n = t.n + excluded.n;
  insert into migrate.run_finish_minutes as t (run_id, minute, n)
  select run_id, date_trunc('minute', finished_at), count(*)
    from new_rows where outcome is not null and finished_at is not null
   group by 1, 2 order by 1, 2
  on conflict (run_id, minute) do update set n = t.n + excluded.n;
  return null;
end $$;

create function migrate.run_outcome_counts_delete() returns trigger language plpgsql as $$
begin
  insert into migrate.run_outcome_counts as t (run_id, outcome, stage, error_code, outcome_source, n)
  select run_id, outcome, stage, coalesce(error_code, ''), coalesce(outcome_source, ''), -count(*)
    from old_rows where outcome is not null
   group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
  on conflict (run_id, outcome, stage, error_code, outcome_source) do update set n = t.n + excluded.n;
  insert into migrate.run_finish_minutes as t (run_id, minute, n)
  select run_id, date_trunc('minute', finished_at), -count(*)
    from old_rows where outcome is not null and finished_at is not null
   group by 1, 2 order by 1, 2
  on conflict (run_id, minute) do update set n = t.n + excluded.n;
  return null;
end $$;

-- Updates: a row trigger whose WHEN clause (evaluated without calling the function) lets through
-- only a change to what is counted: the outcome being recorded, once per account. The many stage
-- updates of accounts in progress never reach it.
create function migrate.run_outcome_counts_update() returns trigger language plpgsql as $$
begin
  if old.outcome is not null then
    update migrate.run_outcome_counts set n = n - 1
     where run_id = old.run_id and outcome = old.outcome and stage = old.stage
       and error_code = coalesce(old.error_code, '') and outcome_source = coalesce(old.outcome_source, '');
    if old.finished_at is not null then
      update migrate.run_finish_minutes set n = n - 1 where run_id = old.run_id and minute = date_trunc('minute', old.finished_at);
    end if;
  end if;
  if new.outcome is not null then
    insert into migrate.run_outcome_counts as t (run_id, outcome, stage, error_code, outcome_source, n)
    values (new.run_id, new.outcome, new.stage, coalesce(new.error_code, ''), coalesce(new.outcome_source, ''), 1)
    on conflict (run_id, outcome, stage, error_code, outcome_source) do update set n = t.n + 1;
    if new.finished_at is not null then
      insert into migrate.run_finish_minutes as t (run_id, minute, n) values (new.run_id, date_trunc('minute', new.finished_at), 1)
      on conflict (run_id, minute) do update set n = t.n + 1;
    end if;
  end if;
  return null;
end $$;

create trigger run_outcome_counts_insert after insert on migrate.account_attempts
  referencing new table as new_rows for each statement execute function migrate.run_outcome_counts_insert();
create trigger run_outcome_counts_delete after delete on migrate.account_attempts
  referencing old table as old_rows for each statement execute function migrate.run_outcome_counts_delete();
create trigger run_outcome_counts_update after update on migrate.account_attempts
  for each row
  when ((old.outcome is not null or new.outcome is not null)
    and (old.run_id, old.outcome, old.stage, old.error_code, old.outcome_source, date_trunc('minute', old.finished_at))
        is distinct from (new.run_id, new.outcome, new.stage, new.error_code, new.outcome_source, date_trunc('minute', new.finished_at)))
  execute function migrate.run_outcome_counts_update();

-- Attempts recorded before this migration.
insert into migrate.run_outcome_counts (run_id, outcome, stage, error_code, outcome_source, n)
select run_id, outcome, stage, coalesce(error_code, ''), coalesce(outcome_source, ''), count(*)
  from migrate.account_attempts where outcome is not null group by 1, 2, 3, 4, 5;
insert into migrate.run_finish_minutes (run_id, minute, n)
select run_id, date_trunc('minute', finished_at), count(*)
  from migrate.account_attempts where outcome is not null and finished_at is not null group by 1, 2;

-- Reconciliation checks of a run by status (`run status` and `report` show them): the same way,
-- statement triggers on migrate.reconciliations (a check replaced is an update: -1 then +1).
create table migrate.reconciliation_status_counts (
  run_id text not null,
  status text not null,
  n bigint not null default 0,
  primary key (run_id, status)
);

create function migrate.reconciliation_status_counts_apply() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_status_counts as t (run_id, status, n)
  select run_id, status, sum(sign) from (
    select run_id, status, -1 as sign from old_rows
    union all
    select run_id, status, 1 as sign from new_rows
  ) x group by 1, 2 having sum(sign) <> 0 order by 1, 2
  on conflict (run_id, status) do update set n = t.n + excluded.n;
  return null;
end $$;

create function migrate.reconciliation_status_counts_insert() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_status_counts as t (run_id, status, n)
  select run_id, status, count(*) from new_rows group by 1, 2 order by 1, 2
  on conflict (run_id, status) do update set n = t.n + excluded.n;
  return null;
end $$;

create function migrate.reconciliation_status_counts_delete() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_status_counts as t (run_id, status, n)
  select run_id, status, -count(*) from old_rows group by 1, 2 order by 1, 2
  on conflict (run_id, status) do update set n = t.n + excluded.n;
  return null;
end $$;

create trigger reconciliation_status_counts_insert after insert on migrate.reconciliations
  referencing new table as new_rows for each statement execute function migrate.reconciliation_status_counts_insert();
create trigger reconciliation_status_counts_update after update on migrate.reconciliations
  referencing old table as old_rows new table as new_rows for each statement execute function migrate.reconciliation_status_counts_apply();
create trigger reconciliation_status_counts_delete after delete on migrate.reconciliations
  referencing old table as old_rows for each statement execute function migrate.reconciliation_status_counts_delete();

insert into migrate.reconciliation_status_counts (run_id, status, n)
select run_id, status, count(*) from migrate.reconciliations group by 1, 2;

-- Down Migration
drop trigger reconciliation_status_counts_delete on migrate.reconciliations;
drop trigger reconciliation_status_counts_update on migrate.reconciliations;
drop trigger reconciliation_status_counts_insert on migrate.reconciliations;
drop function migrate.reconciliation_status_counts_delete();
drop function migrate.reconciliation_status_counts_insert();
drop function migrate.reconciliation_status_counts_apply();
drop table migrate.reconciliation_status_counts;
drop trigger run_outcome_counts_update on migrate.account_attempts;
drop trigger run_outcome_counts_delete on migrate.account_attempts;
drop trigger run_outcome_counts_insert on migrate.account_attempts;
drop function migrate.run_outcome_counts_update();
drop function migrate.run_outcome_counts_delete();
drop function migrate.run_outcome_counts_insert();
drop index migrate.account_attempts_reconcilable;
drop index migrate.account_attempts_open_by_run;
drop table migrate.run_finish_minutes;
drop table migrate.run_outcome_counts;
