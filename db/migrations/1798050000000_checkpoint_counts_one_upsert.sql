-- Up Migration
-- The checkpoint's counts (1797700000000_run_checkpoint_counts.sql) moved by one upsert for an
-- account's change, not two: an account scheduled, or its outcome recorded, adds its difference to
-- its run's row instead of taking its old row away and adding its new one in two upserts. Every
-- account passes here twice, on the one row of its run that all of its accounts update: two upserts
-- an account fewer (docs/throughput.md, "Where the cost goes"). The down migration restores the
-- function as 1797700000000 made it.
create or replace function migrate.run_checkpoint_counts_update() returns trigger language plpgsql as $$
begin
  -- The old row taken away and the new one added, summed per run: one row (one upsert) when the run
  -- is the same, none when both are dry runs.
  insert into migrate.run_checkpoint_counts as t (run_id, attempts, sent, created)
  select (c.r).run_id, sum(c.sign), sum(c.sign * ((c.r).scheduled_at is not null)::int),
         sum(c.sign * coalesce((c.r).outcome in ('completed', 'completed_with_differences') and (c.r).platform_account_number is not null, false)::int)
    from (values (-1, old), (1, new)) as c(sign, r)
   where not (c.r).dry_run
   group by 1 order by 1
  on conflict (run_id) do update set attempts = t.attempts + excluded.attempts, sent = t.sent + excluded.sent, created = t.created + excluded.created;
  return null;
end $$;

-- Down Migration
create or replace function migrate.run_checkpoint_counts_update() returns trigger language plpgsql as $$
begin
  if not old.dry_run then
    perform migrate.run_checkpoint_counts_add(-1, old);
  end if;
  if not new.dry_run then
    perform migrate.run_checkpoint_counts_add(1, new);
  end if;
  return null;
end $$;
