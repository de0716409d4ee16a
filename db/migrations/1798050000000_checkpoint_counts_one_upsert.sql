-- Up Migration
-- The checkpoint's counts (1797700000000_run_checkpoint_counts.sql) moved by one upsert for an
-- account's change, not two: an account scheduled, or its outcome recorded, adds its difference to
-- its run's row (0 attempts, the change in sent and created) instead of taking its old row away and
-- adding its new one. Every account passes here twice, on one row per run that all of its accounts
-- update: two upserts an account fewer (docs/throughput.md, "Where the cost goes").
create or replace function migrate.run_checkpoint_counts_update() returns trigger language plpgsql as $$
begin
  if old.run_id = new.run_id and not old.dry_run and not new.dry_run then
    insert into migrate.run_checkpoint_counts as t (run_id, attempts, sent, created)
    values (new.run_id, 0, (new.scheduled_at is not null)::int - (old.scheduled_at is not null)::int,
            coalesce(new.outcome in ('completed', 'completed_with_differences') and new.platform_account_number is not null, false)::int
            - coalesce(old.outcome in ('completed', 'completed_with_differences') and old.platform_account_number is not null, false)::int)
    on conflict (run_id) do update set sent = t.sent + excluded.sent, created = t.created + excluded.created;
    return null;
  end if;
  if not old.dry_run then
    perform migrate.run_checkpoint_counts_add(-1, old);
  end if;
  if not new.dry_run then
    perform migrate.run_checkpoint_counts_add(1, new);
  end if;
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
