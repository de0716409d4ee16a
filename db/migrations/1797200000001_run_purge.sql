-- Up Migration
-- Issue 39: `kraken-migrate db purge` removes a finished run's personal values (payloads, error
-- details, differences' values, its events' deliveries, its carried-over items) and keeps what is
-- not personal (attempts, outcomes, codes, counts): the run's record stays, and says when it was purged.
alter table migrate.runs add column purged_at timestamptz;
-- The age purge looks for finished runs by finish time.
create index runs_finished_unpurged on migrate.runs (finished_at) where purged_at is null;

-- Down Migration
drop index migrate.runs_finished_unpurged;
alter table migrate.runs drop column purged_at;
