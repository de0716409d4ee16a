-- Up Migration
-- An attempt's counters moved by one statement an event, on rows few accounts share
-- (docs/throughput.md, "Where the cost goes"):
-- - the outcome counts and finishes per minute (1797400000000_run_outcome_summaries.sql) in 16 rows
--   a run where there was one, as the checkpoint's counts are (1798100000001_checkpoint_counts_sharded.sql):
--   every completed account of a run moved the same two rows, one after another under their locks;
--   readers sum a run's shards (ledger/run-summary.ts, ledger/metrics.ts);
-- - those, the checkpoint's counts and, when the outcome is recorded, the account's platform permit
--   freed (1797600000000_platform_permits.sql, 1798100000000_platform_hold_samples.sql) were a
--   trigger each, and a recorded outcome ran five statements inside the update: now one. The WHEN
--   clause still lets through only a change to what is counted (or the outcome being recorded):
--   stage changes never reach it.
delete from migrate.run_outcome_counts;
alter table migrate.run_outcome_counts add column shard smallint not null default 0;
alter table migrate.run_outcome_counts drop constraint run_outcome_counts_pkey, add primary key (run_id, outcome, stage, error_code, outcome_source, shard);
insert into migrate.run_outcome_counts (run_id, outcome, stage, error_code, outcome_source, shard, n)
select run_id, outcome, stage, coalesce(error_code, ''), coalesce(outcome_source, ''), migrate.counter_shard(external_account_number), count(*)
  from migrate.account_attempts where outcome is not null group by 1, 2, 3, 4, 5, 6;

delete from migrate.run_finish_minutes;
alter table migrate.run_finish_minutes add column shard smallint not null default 0;
alter table migrate.run_finish_minutes drop constraint run_finish_minutes_pkey, add primary key (run_id, minute, shard);
insert into migrate.run_finish_minutes (run_id, minute, shard, n)
select run_id, date_trunc('minute', finished_at), migrate.counter_shard(external_account_number), count(*)
  from migrate.account_attempts where outcome is not null and finished_at is not null group by 1, 2, 3;

drop trigger run_checkpoint_counts_insert on migrate.account_attempts;
drop trigger run_checkpoint_counts_delete on migrate.account_attempts;
drop trigger run_checkpoint_counts_update on migrate.account_attempts;
drop trigger run_outcome_counts_insert on migrate.account_attempts;
drop trigger run_outcome_counts_delete on migrate.account_attempts;
drop trigger run_outcome_counts_update on migrate.account_attempts;
drop trigger platform_permit_release on migrate.account_attempts;

-- An insert adds its rows, a delete takes its rows away: one function, the transition table named alike.
create function migrate.account_attempts_counts_change() returns trigger language plpgsql as $$
begin
  with c as (
    select x.run_id, x.dry_run, x.outcome, x.stage, coalesce(x.error_code, '') as error_code, coalesce(x.outcome_source, '') as outcome_source,
           date_trunc('minute', x.finished_at) as minute, x.scheduled_at is not null as sent,
           coalesce(x.outcome in ('completed', 'completed_with_differences') and x.platform_account_number is not null, false) as created, migrate.counter_shard(x.external_account_number) as shard, x.sign
      from (select run_id, external_account_number, dry_run, outcome, stage, error_code, outcome_source, finished_at, scheduled_at, platform_account_number,
                   case when TG_OP = 'INSERT' then 1 else -1 end as sign from changed_rows) x),
  checkpoint as (
    insert into migrate.run_checkpoint_counts as t (run_id, shard, attempts, sent, created)
    select run_id, shard, sum(sign), sum(sign * sent::int), sum(sign * created::int) from c where not dry_run
     group by 1, 2 having sum(sign) <> 0 or sum(sign * sent::int) <> 0 or sum(sign * created::int) <> 0 order by 1, 2
    on conflict (run_id, shard) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created),
  minutes as (
    insert into migrate.run_finish_minutes as t (run_id, minute, shard, n)
    select run_id, minute, shard, sum(sign) from c where outcome is not null and minute is not null
     group by 1, 2, 3 having sum(sign) <> 0 order by 1, 2, 3
    on conflict (run_id, minute, shard) do update set n = t.n + excluded.n)
  insert into migrate.run_outcome_counts as t (run_id, outcome, stage, error_code, outcome_source, shard, n)
  select run_id, outcome, stage, error_code, outcome_source, shard, sum(sign) from c where outcome is not null
   group by 1, 2, 3, 4, 5, 6 having sum(sign) <> 0 order by 1, 2, 3, 4, 5, 6
  on conflict (run_id, outcome, stage, error_code, outcome_source, shard) do update set n = t.n + excluded.n;
  return null;
end $$;

-- An update: the old row's counts out (-1), the new row's in (+1); an outcome recorded frees the
-- account's permit (its hold a sample for the window, as migrate.free_platform_permit does) and
-- forgets it as a waiter, in the same statement.
create function migrate.account_attempts_counts_update() returns trigger language plpgsql as $$
declare
  released boolean := old.outcome is null and new.outcome is not null;
begin
  with c as (
    select x.run_id, x.dry_run, x.outcome, x.stage, coalesce(x.error_code, '') as error_code, coalesce(x.outcome_source, '') as outcome_source,
           date_trunc('minute', x.finished_at) as minute, x.scheduled_at is not null as sent,
           coalesce(x.outcome in ('completed', 'completed_with_differences') and x.platform_account_number is not null, false) as created, migrate.counter_shard(x.external_account_number) as shard, x.sign
      from (select (r).run_id, (r).external_account_number, (r).dry_run, (r).outcome, (r).stage, (r).error_code, (r).outcome_source,
                   (r).finished_at, (r).scheduled_at, (r).platform_account_number, sign
              from (values (-1, old), (1, new)) as v(sign, r)) x),
  checkpoint as (
    insert into migrate.run_checkpoint_counts as t (run_id, shard, attempts, sent, created)
    select run_id, shard, sum(sign), sum(sign * sent::int), sum(sign * created::int) from c where not dry_run
     group by 1, 2 having sum(sign) <> 0 or sum(sign * sent::int) <> 0 or sum(sign * created::int) <> 0 order by 1, 2
    on conflict (run_id, shard) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created),
  minutes as (
    insert into migrate.run_finish_minutes as t (run_id, minute, shard, n)
    select run_id, minute, shard, sum(sign) from c where outcome is not null and minute is not null
     group by 1, 2, 3 having sum(sign) <> 0 order by 1, 2, 3
    on conflict (run_id, minute, shard) do update set n = t.n + excluded.n),
  freed as (delete from migrate.platform_permits where released and holder = new.workflow_id returning tenant, accepted_at),
  held as (insert into migrate.platform_permit_holds (tenant, held_ms)
           select tenant, extract(epoch from (clock_timestamp() - accepted_at)) * 1000 from freed where accepted_at is not null),
  forgotten as (delete from migrate.platform_permit_waiters where released and holder = new.workflow_id)
  insert into migrate.run_outcome_counts as t (run_id, outcome, stage, error_code, outcome_source, shard, n)
  select run_id, outcome, stage, error_code, outcome_source, shard, sum(sign) from c where outcome is not null
   group by 1, 2, 3, 4, 5, 6 having sum(sign) <> 0 order by 1, 2, 3, 4, 5, 6
  on conflict (run_id, outcome, stage, error_code, outcome_source, shard) do update set n = t.n + excluded.n;
  return null;
end $$;

create trigger account_attempts_counts_insert after insert on migrate.account_attempts
  referencing new table as changed_rows for each statement execute function migrate.account_attempts_counts_change();
create trigger account_attempts_counts_delete after delete on migrate.account_attempts
  referencing old table as changed_rows for each statement execute function migrate.account_attempts_counts_change();
create trigger account_attempts_counts_update after update on migrate.account_attempts
  for each row
  when ((old.run_id, old.dry_run, old.scheduled_at is null,
         coalesce(old.outcome in ('completed', 'completed_with_differences') and old.platform_account_number is not null, false))
        is distinct from
        (new.run_id, new.dry_run, new.scheduled_at is null,
         coalesce(new.outcome in ('completed', 'completed_with_differences') and new.platform_account_number is not null, false))
    or ((old.outcome is not null or new.outcome is not null)
    and (old.run_id, old.outcome, old.stage, old.error_code, old.outcome_source, date_trunc('minute', old.finished_at))
        is distinct from (new.run_id, new.outcome, new.stage, new.error_code, new.outcome_source, date_trunc('minute', new.finished_at))))
  execute function migrate.account_attempts_counts_update();

drop function migrate.run_checkpoint_counts_insert();
drop function migrate.run_checkpoint_counts_delete();
drop function migrate.run_checkpoint_counts_update();
drop function migrate.run_outcome_counts_insert();
drop function migrate.run_outcome_counts_delete();
drop function migrate.run_outcome_counts_update();
drop function migrate.platform_permit_release();

-- Down Migration
drop trigger account_attempts_counts_update on migrate.account_attempts;
drop trigger account_attempts_counts_delete on migrate.account_attempts;
drop trigger account_attempts_counts_insert on migrate.account_attempts;
drop function migrate.account_attempts_counts_update();
drop function migrate.account_attempts_counts_change();
create function migrate.run_checkpoint_counts_insert() returns trigger language plpgsql as $$
begin
  insert into migrate.run_checkpoint_counts as t (run_id, shard, attempts, sent, created)
  select run_id, migrate.counter_shard(external_account_number), count(*), count(scheduled_at),
         count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)
    from new_rows where not dry_run group by 1, 2 order by 1, 2
  on conflict (run_id, shard) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created;
  return null;
end $$;

create function migrate.run_checkpoint_counts_delete() returns trigger language plpgsql as $$
begin
  insert into migrate.run_checkpoint_counts as t (run_id, shard, attempts, sent, created)
  select run_id, migrate.counter_shard(external_account_number), -count(*), -count(scheduled_at),
         -count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)
    from old_rows where not dry_run group by 1, 2 order by 1, 2
  on conflict (run_id, shard) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created;
  return null;
end $$;

create function migrate.run_checkpoint_counts_update() returns trigger language plpgsql as $$
begin
  insert into migrate.run_checkpoint_counts as t (run_id, shard, attempts, sent, created)
  select (c.r).run_id, migrate.counter_shard((c.r).external_account_number), sum(c.sign), sum(c.sign * ((c.r).scheduled_at is not null)::int),
         sum(c.sign * coalesce((c.r).outcome in ('completed', 'completed_with_differences') and (c.r).platform_account_number is not null, false)::int)
    from (values (-1, old), (1, new)) as c(sign, r)
   where not (c.r).dry_run
   group by 1, 2 order by 1, 2
  on conflict (run_id, shard) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created;
  return null;
end $$;

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

create function migrate.platform_permit_release() returns trigger language plpgsql as $$
begin
  perform migrate.free_platform_permit(new.workflow_id);
  delete from migrate.platform_permit_waiters where holder = new.workflow_id;
  return null;
end $$;

create trigger platform_permit_release after update on migrate.account_attempts
  for each row when (old.outcome is null and new.outcome is not null)
  execute function migrate.platform_permit_release();

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
create temporary table outcome_sums on commit drop as
  select run_id, outcome, stage, error_code, outcome_source, sum(n) as n from migrate.run_outcome_counts group by 1, 2, 3, 4, 5;
delete from migrate.run_outcome_counts;
alter table migrate.run_outcome_counts drop constraint run_outcome_counts_pkey, drop column shard, add primary key (run_id, outcome, stage, error_code, outcome_source);
insert into migrate.run_outcome_counts (run_id, outcome, stage, error_code, outcome_source, n) select * from outcome_sums;
create temporary table minute_sums on commit drop as select run_id, minute, sum(n) as n from migrate.run_finish_minutes group by 1, 2;
delete from migrate.run_finish_minutes;
alter table migrate.run_finish_minutes drop constraint run_finish_minutes_pkey, drop column shard, add primary key (run_id, minute);
insert into migrate.run_finish_minutes (run_id, minute, n) select * from minute_sums;
