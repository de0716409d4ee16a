-- Up Migration
-- The checkpoint's counts (1797700000000_run_checkpoint_counts.sql) kept in 16 rows a run, not one:
-- every account of a run moved its run's one row twice (scheduled, outcome recorded), so the run's
-- accounts queued on that row's lock, one after another (docs/throughput.md, "Where the cost goes").
-- An account's shard is a hash of its number, so an account's changes always land on the same row;
-- the checkpoint sums a run's rows (ledger/reconciliation.ts already reads sum()).
-- Which of its run's 16 rows an account's counts go to.
create function migrate.counter_shard(external_account_number text) returns smallint language sql immutable parallel safe as $$
  select (hashtext(external_account_number) & 15)::smallint
$$;

-- The counts so far recounted into their shards (a full count, as 1797700000000 made them).
delete from migrate.run_checkpoint_counts;
alter table migrate.run_checkpoint_counts add column shard smallint not null default 0;
alter table migrate.run_checkpoint_counts drop constraint run_checkpoint_counts_pkey, add primary key (run_id, shard);
insert into migrate.run_checkpoint_counts (run_id, shard, attempts, sent, created)
select run_id, migrate.counter_shard(external_account_number), count(*), count(scheduled_at),
       count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)
  from migrate.account_attempts where not dry_run group by 1, 2;

create or replace function migrate.run_checkpoint_counts_insert() returns trigger language plpgsql as $$
begin
  insert into migrate.run_checkpoint_counts as t (run_id, shard, attempts, sent, created)
  select run_id, migrate.counter_shard(external_account_number), count(*), count(scheduled_at),
         count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)
    from new_rows where not dry_run group by 1, 2 order by 1, 2
  on conflict (run_id, shard) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created;
  return null;
end $$;

create or replace function migrate.run_checkpoint_counts_delete() returns trigger language plpgsql as $$
begin
  insert into migrate.run_checkpoint_counts as t (run_id, shard, attempts, sent, created)
  select run_id, migrate.counter_shard(external_account_number), -count(*), -count(scheduled_at),
         -count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)
    from old_rows where not dry_run group by 1, 2 order by 1, 2
  on conflict (run_id, shard) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created;
  return null;
end $$;

create or replace function migrate.run_checkpoint_counts_update() returns trigger language plpgsql as $$
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

-- Down Migration
create or replace function migrate.run_checkpoint_counts_update() returns trigger language plpgsql as $$
begin
  insert into migrate.run_checkpoint_counts as t (run_id, attempts, sent, created)
  select (c.r).run_id, sum(c.sign), sum(c.sign * ((c.r).scheduled_at is not null)::int),
         sum(c.sign * coalesce((c.r).outcome in ('completed', 'completed_with_differences') and (c.r).platform_account_number is not null, false)::int)
    from (values (-1, old), (1, new)) as c(sign, r)
   where not (c.r).dry_run
   group by 1 order by 1
  on conflict (run_id) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created;
  return null;
end $$;
create or replace function migrate.run_checkpoint_counts_delete() returns trigger language plpgsql as $$
begin
  insert into migrate.run_checkpoint_counts as t (run_id, attempts, sent, created)
  select run_id, -count(*), -count(scheduled_at),
         -count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)
    from old_rows where not dry_run group by 1 order by 1
  on conflict (run_id) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created;
  return null;
end $$;
create or replace function migrate.run_checkpoint_counts_insert() returns trigger language plpgsql as $$
begin
  insert into migrate.run_checkpoint_counts as t (run_id, attempts, sent, created)
  select run_id, count(*), count(scheduled_at),
         count(*) filter (where outcome in ('completed', 'completed_with_differences') and platform_account_number is not null)
    from new_rows where not dry_run group by 1 order by 1
  on conflict (run_id) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created;
  return null;
end $$;
drop function migrate.counter_shard(text);
create temporary table checkpoint_sums on commit drop as
  select run_id, sum(attempts) as attempts, sum(sent) as sent, sum(created) as created from migrate.run_checkpoint_counts group by 1;
delete from migrate.run_checkpoint_counts;
alter table migrate.run_checkpoint_counts drop constraint run_checkpoint_counts_pkey, drop column shard, add primary key (run_id);
insert into migrate.run_checkpoint_counts (run_id, attempts, sent, created) select run_id, attempts, sent, created from checkpoint_sums;
