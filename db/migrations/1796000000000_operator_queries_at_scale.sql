-- Up Migration
-- Operator commands at a million attempts (README, "Operator commands at a million rows"): each
-- index below serves one of their queries, found slow with EXPLAIN (ANALYZE) on a seeded ledger.

-- `rerun-failed` selection, failed-accounts.csv's pages: a run's failed and not-attempted accounts by number.
create index account_attempts_failed on migrate.account_attempts (run_id, external_account_number)
  where outcome in ('failed', 'not_attempted');
-- `rerun-failed --code X` selection, the report's examples per code and counts by code.
create index account_attempts_failed_by_code on migrate.account_attempts (run_id, error_code, external_account_number)
  where outcome in ('failed', 'not_attempted');
-- `run status` and `report`: a run's accounts by outcome and stage (an index-only count, not a heap scan).
create index account_attempts_run_outcome_stage on migrate.account_attempts (run_id, outcome, stage);
-- Reconciliation counts by status, and the accounts a record left fields out of (the CSV's pages).
create index reconciliations_run_status on migrate.reconciliations (run_id, status);
create index reconciliations_unverified on migrate.reconciliations (run_id, external_account_number) where unverified_fields > 0;

-- Per run and field: accounts matched, differing, unverified (differing over unverified over
-- matched, as ledger/reconciliation.ts ranks them), and accounts with any unverified leaf. Summing
-- every check's field_counts at read time costs seconds at a million accounts; kept here by
-- statement triggers instead, one upsert per statement whatever its row count.
create table migrate.reconciliation_field_totals (
  run_id text not null,
  field text not null,
  matched integer not null default 0,
  differing integer not null default 0,
  unverified integer not null default 0,
  any_unverified integer not null default 0,
  primary key (run_id, field)
);

create function migrate.reconciliation_field_totals_apply() returns trigger language plpgsql as $$
begin
  -- An update: the rows' previous checks leave (-1), their new ones arrive (+1); keys sorted, so
  -- concurrent statements lock counters in one order.
  insert into migrate.reconciliation_field_totals as t (run_id, field, matched, differing, unverified, any_unverified)
  select run_id, field, sum(m), sum(d), sum(u), sum(a) from (
    select x.run_id, f.key as field, x.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int as m,
           x.sign * ((f.value->>1)::int > 0)::int as d,
           x.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int as u,
           x.sign * ((f.value->>2)::int > 0)::int as a
      from (
        select o.run_id, o.field_counts, -1 as sign from old_rows o
        union all
        select n.run_id, n.field_counts, 1 as sign from new_rows n
      ) x cross join lateral jsonb_each(x.field_counts) f
  ) c
  group by run_id, field
  having sum(m) <> 0 or sum(d) <> 0 or sum(u) <> 0 or sum(a) <> 0
  order by run_id, field
  on conflict (run_id, field) do update
    set matched = t.matched + excluded.matched, differing = t.differing + excluded.differing,
        unverified = t.unverified + excluded.unverified, any_unverified = t.any_unverified + excluded.any_unverified;
  return null;
end $$;

-- A trigger with transition tables names one event: an insert adds its rows, a delete (also the
-- cascade from a deleted attempt) takes its rows away.
create function migrate.reconciliation_field_totals_insert() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_field_totals as t (run_id, field, matched, differing, unverified, any_unverified)
  select n.run_id, f.key, sum(((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int), sum(((f.value->>1)::int > 0)::int),
         sum(((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int), sum(((f.value->>2)::int > 0)::int)
    from new_rows n cross join lateral jsonb_each(n.field_counts) f
   group by n.run_id, f.key order by n.run_id, f.key
  on conflict (run_id, field) do update
    set matched = t.matched + excluded.matched, differing = t.differing + excluded.differing,
        unverified = t.unverified + excluded.unverified, any_unverified = t.any_unverified + excluded.any_unverified;
  return null;
end $$;

create function migrate.reconciliation_field_totals_delete() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_field_totals as t (run_id, field, matched, differing, unverified, any_unverified)
  select o.run_id, f.key, -sum(((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int), -sum(((f.value->>1)::int > 0)::int),
         -sum(((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int), -sum(((f.value->>2)::int > 0)::int)
    from old_rows o cross join lateral jsonb_each(o.field_counts) f
   group by o.run_id, f.key order by o.run_id, f.key
  on conflict (run_id, field) do update
    set matched = t.matched + excluded.matched, differing = t.differing + excluded.differing,
        unverified = t.unverified + excluded.unverified, any_unverified = t.any_unverified + excluded.any_unverified;
  return null;
end $$;

create trigger reconciliation_field_totals_insert after insert on migrate.reconciliations
  referencing new table as new_rows for each statement execute function migrate.reconciliation_field_totals_insert();
create trigger reconciliation_field_totals_update after update on migrate.reconciliations
  referencing old table as old_rows new table as new_rows for each statement execute function migrate.reconciliation_field_totals_apply();
create trigger reconciliation_field_totals_delete after delete on migrate.reconciliations
  referencing old table as old_rows for each statement execute function migrate.reconciliation_field_totals_delete();

-- Checks recorded before this migration.
insert into migrate.reconciliation_field_totals (run_id, field, matched, differing, unverified, any_unverified)
select r.run_id, f.key, count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int = 0), count(*) filter (where (f.value->>1)::int > 0),
       count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int > 0), count(*) filter (where (f.value->>2)::int > 0)
  from migrate.reconciliations r cross join lateral jsonb_each(r.field_counts) f
 group by r.run_id, f.key;

-- Down Migration
drop trigger reconciliation_field_totals_delete on migrate.reconciliations;
drop trigger reconciliation_field_totals_update on migrate.reconciliations;
drop trigger reconciliation_field_totals_insert on migrate.reconciliations;
drop function migrate.reconciliation_field_totals_delete();
drop function migrate.reconciliation_field_totals_insert();
drop function migrate.reconciliation_field_totals_apply();
drop table migrate.reconciliation_field_totals;
drop index migrate.reconciliations_unverified;
drop index migrate.reconciliations_run_status;
drop index migrate.account_attempts_run_outcome_stage;
drop index migrate.account_attempts_failed_by_code;
drop index migrate.account_attempts_failed;
