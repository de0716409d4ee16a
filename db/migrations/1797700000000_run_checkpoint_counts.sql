-- Up Migration
-- The rest of `run status`'s and `report`'s summary without scanning a run (docs/throughput.md,
-- "Operator answers at a million rows"): the checkpoint's counts (accounts in the source, sent,
-- created), the reconciliation's unverified accounts and balance totals, kept per run by triggers
-- as 1797400000000_run_outcome_summaries.sql keeps the outcome counts (every writer, in the same
-- transaction as the row it counts), and the review sample read from an index in its own order.

-- A run's attempts outside dry runs: all of them, those scheduled with the platform, those created
-- (a completed outcome with the platform's account number).
create table migrate.run_checkpoint_counts (
  run_id text primary key references migrate.runs (run_id) on delete cascade,
  attempts bigint not null default 0,
  sent bigint not null default 0,
  created bigint not null default 0
);

create function migrate.run_checkpoint_counts_add(rows_sign int, r migrate.account_attempts) returns void language sql as $$
  insert into migrate.run_checkpoint_counts as t (run_id, attempts, sent, created)
  values (r.run_id, rows_sign, rows_sign * (r.scheduled_at is not null)::int,
          rows_sign * coalesce(r.outcome in ('completed', 'completed_with_differences') and r.platform_account_number is not null, false)::int)
  on conflict (run_id) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created
$$;

-- Inserts and deletes: one statement trigger each (a bulk insert is one upsert per run).
create function migrate.run_checkpoint_counts_insert() returns trigger language plpgsql as $$
begin
  insert into migrate.run_checkpoint_counts as t (run_id, attempts, sent, created)
  select run_id, count(*), count(scheduled_at),
         count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)
    from new_rows where not dry_run group by 1 order by 1
  on conflict (run_id) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created;
  return null;
end $$;

create function migrate.run_checkpoint_counts_delete() returns trigger language plpgsql as $$
begin
  insert into migrate.run_checkpoint_counts as t (run_id, attempts, sent, created)
  select run_id, -count(*), -count(scheduled_at),
         -count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)
    from old_rows where not dry_run group by 1 order by 1
  on conflict (run_id) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created;
  return null;
end $$;

-- Updates: a row trigger whose WHEN clause lets through only a change to what is counted: an
-- account scheduled (once) and its outcome recorded (once). Stage changes never reach it.
create function migrate.run_checkpoint_counts_update() returns trigger language plpgsql as $$
begin
  if not old.dry_run then
    perform migrate.run_checkpoint_counts_add(-1, old);
  end if;
  if not new.dry_run then
    perform migrate.run_checkpoint_counts_add(1, new);
  end if;
  return null;
end $$;

create trigger run_checkpoint_counts_insert after insert on migrate.account_attempts
  referencing new table as new_rows for each statement execute function migrate.run_checkpoint_counts_insert();
create trigger run_checkpoint_counts_delete after delete on migrate.account_attempts
  referencing old table as old_rows for each statement execute function migrate.run_checkpoint_counts_delete();
create trigger run_checkpoint_counts_update after update on migrate.account_attempts
  for each row
  when ((old.run_id, old.dry_run, old.scheduled_at is null,
         coalesce(old.outcome in ('completed', 'completed_with_differences') and old.platform_account_number is not null, false))
        is distinct from
        (new.run_id, new.dry_run, new.scheduled_at is null,
         coalesce(new.outcome in ('completed', 'completed_with_differences') and new.platform_account_number is not null, false)))
  execute function migrate.run_checkpoint_counts_update();

insert into migrate.run_checkpoint_counts (run_id, attempts, sent, created)
select run_id, count(*), count(scheduled_at),
       count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)
  from migrate.account_attempts where not dry_run group by 1;

-- A run's checks: accounts with a field the platform's record did not contain, and the balance
-- totals in pence (exact numerics) over the accounts whose balance was read back on both sides.
create table migrate.reconciliation_run_totals (
  run_id text primary key,
  unverified bigint not null default 0,
  balance_accounts bigint not null default 0,
  source_pence numeric not null default 0,
  platform_pence numeric not null default 0
);

-- Statement triggers, as the status counts': old rows subtract, new rows add (a replaced check is
-- an update: both).
create function migrate.reconciliation_run_totals_insert() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_run_totals as t (run_id, unverified, balance_accounts, source_pence, platform_pence)
  select run_id, sum(sign * (unverified_fields > 0)::int), sum(sign * balanced::int),
         coalesce(sum(sign * source_balance_pence) filter (where balanced), 0),
         coalesce(sum(sign * platform_balance_pence) filter (where balanced), 0)
    from (select run_id, unverified_fields, source_balance_pence, platform_balance_pence,
                 source_balance_pence is not null and platform_balance_pence is not null as balanced, sign
            from (select *, 1 as sign from new_rows) changed) x
   group by 1 order by 1
  on conflict (run_id) do update set unverified = t.unverified + excluded.unverified,
    balance_accounts = t.balance_accounts + excluded.balance_accounts,
    source_pence = t.source_pence + excluded.source_pence, platform_pence = t.platform_pence + excluded.platform_pence;
  return null;
end $$;

create function migrate.reconciliation_run_totals_delete() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_run_totals as t (run_id, unverified, balance_accounts, source_pence, platform_pence)
  select run_id, sum(sign * (unverified_fields > 0)::int), sum(sign * balanced::int),
         coalesce(sum(sign * source_balance_pence) filter (where balanced), 0),
         coalesce(sum(sign * platform_balance_pence) filter (where balanced), 0)
    from (select run_id, unverified_fields, source_balance_pence, platform_balance_pence,
                 source_balance_pence is not null and platform_balance_pence is not null as balanced, sign
            from (select *, -1 as sign from old_rows) changed) x
   group by 1 order by 1
  on conflict (run_id) do update set unverified = t.unverified + excluded.unverified,
    balance_accounts = t.balance_accounts + excluded.balance_accounts,
    source_pence = t.source_pence + excluded.source_pence, platform_pence = t.platform_pence + excluded.platform_pence;
  return null;
end $$;

create function migrate.reconciliation_run_totals_apply() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_run_totals as t (run_id, unverified, balance_accounts, source_pence, platform_pence)
  select run_id, sum(sign * (unverified_fields > 0)::int), sum(sign * balanced::int),
         coalesce(sum(sign * source_balance_pence) filter (where balanced), 0),
         coalesce(sum(sign * platform_balance_pence) filter (where balanced), 0)
    from (select run_id, unverified_fields, source_balance_pence, platform_balance_pence,
                 source_balance_pence is not null and platform_balance_pence is not null as balanced, sign
            from (select *, -1 as sign from old_rows union all select *, 1 as sign from new_rows) changed) x
   group by 1 order by 1
  on conflict (run_id) do update set unverified = t.unverified + excluded.unverified,
    balance_accounts = t.balance_accounts + excluded.balance_accounts,
    source_pence = t.source_pence + excluded.source_pence, platform_pence = t.platform_pence + excluded.platform_pence;
  return null;
end $$;

create trigger reconciliation_run_totals_insert after insert on migrate.reconciliations
  referencing new table as new_rows for each statement execute function migrate.reconciliation_run_totals_insert();
create trigger reconciliation_run_totals_update after update on migrate.reconciliations
  referencing old table as old_rows new table as new_rows for each statement execute function migrate.reconciliation_run_totals_apply();
create trigger reconciliation_run_totals_delete after delete on migrate.reconciliations
  referencing old table as old_rows for each statement execute function migrate.reconciliation_run_totals_delete();

insert into migrate.reconciliation_run_totals (run_id, unverified, balance_accounts, source_pence, platform_pence)
select run_id, count(*) filter (where unverified_fields > 0),
       count(*) filter (where source_balance_pence is not null and platform_balance_pence is not null),
       coalesce(sum(source_balance_pence) filter (where source_balance_pence is not null and platform_balance_pence is not null), 0),
       coalesce(sum(platform_balance_pence) filter (where source_balance_pence is not null and platform_balance_pence is not null), 0)
  from migrate.reconciliations group by 1;

-- The review sample (a run's completed accounts ordered by a hash of their number, the same sample
-- on every report) read from the index in that order: 20 rows, not a sort of every completed account.
create index account_attempts_review_sample on migrate.account_attempts (run_id, md5(external_account_number), external_account_number)
  where outcome in ('completed', 'completed_with_differences') and not dry_run and platform_account_number is not null;

-- Down Migration
drop index migrate.account_attempts_review_sample;
drop trigger reconciliation_run_totals_delete on migrate.reconciliations;
drop trigger reconciliation_run_totals_update on migrate.reconciliations;
drop trigger reconciliation_run_totals_insert on migrate.reconciliations;
drop function migrate.reconciliation_run_totals_apply();
drop function migrate.reconciliation_run_totals_delete();
drop function migrate.reconciliation_run_totals_insert();
drop table migrate.reconciliation_run_totals;
drop trigger run_checkpoint_counts_update on migrate.account_attempts;
drop trigger run_checkpoint_counts_delete on migrate.account_attempts;
drop trigger run_checkpoint_counts_insert on migrate.account_attempts;
drop function migrate.run_checkpoint_counts_update();
drop function migrate.run_checkpoint_counts_delete();
drop function migrate.run_checkpoint_counts_insert();
drop function migrate.run_checkpoint_counts_add(int, migrate.account_attempts);
drop table migrate.run_checkpoint_counts;
