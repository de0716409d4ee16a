-- Up Migration
-- A run's outcome counts and finishes per minute (1797400000000_run_outcome_summaries.sql) kept in
-- 16 rows where there was one, as the checkpoint's counts are (1798100000001_checkpoint_counts_sharded.sql):
-- every completed account of a run moved the same two rows, one after another under their locks
-- (docs/throughput.md, "Where the cost goes"). Each trigger writes both in one statement. Readers sum
-- a run's shards (ledger/run-summary.ts, ledger/metrics.ts).
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

create or replace function migrate.run_outcome_counts_insert() returns trigger language plpgsql as $$
begin
  with minutes as (
    insert into migrate.run_finish_minutes as t (run_id, minute, shard, n)
    select run_id, date_trunc('minute', finished_at), migrate.counter_shard(external_account_number), count(*)
      from new_rows where outcome is not null and finished_at is not null
     group by 1, 2, 3 order by 1, 2, 3
    on conflict (run_id, minute, shard) do update set n = t.n + excluded.n)
  insert into migrate.run_outcome_counts as t (run_id, outcome, stage, error_code, outcome_source, shard, n)
  select run_id, outcome, stage, coalesce(error_code, ''), coalesce(outcome_source, ''), migrate.counter_shard(external_account_number), count(*)
    from new_rows where outcome is not null
   group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4, 5, 6
  on conflict (run_id, outcome, stage, error_code, outcome_source, shard) do update set n = t.n + excluded.n;
  return null;
end $$;

create or replace function migrate.run_outcome_counts_delete() returns trigger language plpgsql as $$
begin
  with minutes as (
    insert into migrate.run_finish_minutes as t (run_id, minute, shard, n)
    select run_id, date_trunc('minute', finished_at), migrate.counter_shard(external_account_number), -count(*)
      from old_rows where outcome is not null and finished_at is not null
     group by 1, 2, 3 order by 1, 2, 3
    on conflict (run_id, minute, shard) do update set n = t.n + excluded.n)
  insert into migrate.run_outcome_counts as t (run_id, outcome, stage, error_code, outcome_source, shard, n)
  select run_id, outcome, stage, coalesce(error_code, ''), coalesce(outcome_source, ''), migrate.counter_shard(external_account_number), -count(*)
    from old_rows where outcome is not null
   group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4, 5, 6
  on conflict (run_id, outcome, stage, error_code, outcome_source, shard) do update set n = t.n + excluded.n;
  return null;
end $$;

-- An outcome recorded (or, rarely, changed): the old row's counts out (-1), the new row's in (+1).
create or replace function migrate.run_outcome_counts_update() returns trigger language plpgsql as $$
begin
  with c as (
    select (c.r).run_id as run_id, (c.r).outcome as outcome, (c.r).stage as stage, coalesce((c.r).error_code, '') as error_code,
           coalesce((c.r).outcome_source, '') as outcome_source, date_trunc('minute', (c.r).finished_at) as minute,
           migrate.counter_shard((c.r).external_account_number) as shard, c.sign
      from (values (-1, old), (1, new)) as c(sign, r) where (c.r).outcome is not null),
  minutes as (
    insert into migrate.run_finish_minutes as t (run_id, minute, shard, n)
    select run_id, minute, shard, sum(sign) from c where minute is not null
     group by 1, 2, 3 having sum(sign) <> 0 order by 1, 2, 3
    on conflict (run_id, minute, shard) do update set n = t.n + excluded.n)
  insert into migrate.run_outcome_counts as t (run_id, outcome, stage, error_code, outcome_source, shard, n)
  select run_id, outcome, stage, error_code, outcome_source, shard, sum(sign) from c
   group by 1, 2, 3, 4, 5, 6 having sum(sign) <> 0 order by 1, 2, 3, 4, 5, 6
  on conflict (run_id, outcome, stage, error_code, outcome_source, shard) do update set n = t.n + excluded.n;
  return null;
end $$;

-- Down Migration
create or replace function migrate.run_outcome_counts_insert() returns trigger language plpgsql as $$
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
create or replace function migrate.run_outcome_counts_delete() returns trigger language plpgsql as $$
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
create or replace function migrate.run_outcome_counts_update() returns trigger language plpgsql as $$
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
create temporary table outcome_sums on commit drop as
  select run_id, outcome, stage, error_code, outcome_source, sum(n) as n from migrate.run_outcome_counts group by 1, 2, 3, 4, 5;
delete from migrate.run_outcome_counts;
alter table migrate.run_outcome_counts drop constraint run_outcome_counts_pkey, drop column shard, add primary key (run_id, outcome, stage, error_code, outcome_source);
insert into migrate.run_outcome_counts (run_id, outcome, stage, error_code, outcome_source, n) select * from outcome_sums;
create temporary table minute_sums on commit drop as select run_id, minute, sum(n) as n from migrate.run_finish_minutes group by 1, 2;
delete from migrate.run_finish_minutes;
alter table migrate.run_finish_minutes drop constraint run_finish_minutes_pkey, drop column shard, add primary key (run_id, minute);
insert into migrate.run_finish_minutes (run_id, minute, n) select * from minute_sums;
