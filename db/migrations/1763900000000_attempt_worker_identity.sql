-- Up Migration
-- Which worker process started and which recorded each attempt's outcome: the Temporal identity of
-- the worker, taken from the connection's application_name (workers set it; see clients/db.ts).
-- A trigger rather than a column in every statement: whichever code writes the row, the database
-- names the process that did it, and the write paths stay as they are.
alter table migrate.account_attempts add column started_by text, add column recorded_by text;

create function migrate.stamp_attempt_worker() returns trigger language plpgsql as $$
declare
  who text := nullif(current_setting('application_name', true), '');
begin
  if tg_op = 'INSERT' then
    new.started_by := who;
  end if;
  if new.outcome is not null and (tg_op = 'INSERT' or old.outcome is null) then
    new.recorded_by := who;
  end if;
  return new;
end $$;

create trigger account_attempts_worker before insert or update on migrate.account_attempts
  for each row execute function migrate.stamp_attempt_worker();

-- Down Migration
drop trigger account_attempts_worker on migrate.account_attempts;
drop function migrate.stamp_attempt_worker();
alter table migrate.account_attempts drop column started_by, drop column recorded_by;
