-- Up Migration
-- The adaptive pace becomes a window of permits on accounts in processing at a tenant
-- (domain/platform-pace.ts): the tenant's limit is on a count, so the shared state is a count.
-- One row per tenant in migrate.platform_pace (the window, read and written under its row lock),
-- one row per permit held, one per account waiting for one.
alter table migrate.platform_pace
  add column window_size double precision,
  -- How long an accepted account holds its permit (moving average, ms): the platform's processing
  -- time as its own answers measure it (Little's law: window ÷ this = accounts a second).
  add column hold_ms double precision,
  drop column next_free_at;
update migrate.platform_pace set window_size = 4;
alter table migrate.platform_pace alter column window_size set not null, drop column rate;

create table migrate.platform_permits (
  tenant text not null,
  -- The account workflow's id: one permit per account attempt.
  holder text not null,
  fairness_key text not null,
  priority_key int not null,
  weight double precision not null,
  granted_at timestamptz not null default clock_timestamp(),
  -- Set when the tenant accepted the account: from then on it is in processing there.
  accepted_at timestamptz,
  -- A permit whose account never records an outcome (its workflow terminated) is not held forever.
  expires_at timestamptz not null,
  primary key (tenant, holder)
);
create index platform_permits_holder on migrate.platform_permits (holder);

create table migrate.platform_permit_waiters (
  tenant text not null,
  holder text not null,
  fairness_key text not null,
  priority_key int not null,
  weight double precision not null,
  -- Kept across the account's activity attempts: its place in the queue.
  since timestamptz not null default clock_timestamp(),
  -- Refreshed while its activity waits; a waiter not seen lately is passed over (its attempt ended).
  seen_at timestamptz not null default clock_timestamp(),
  primary key (tenant, holder)
);

-- The platform has finished with an account: its permit is free. Called by the events router when
-- the account's terminal event comes (the earliest the client knows), and by the trigger below when
-- its outcome is recorded, whoever records it (the pipeline after a poll, a sweep, a test).
create function migrate.free_platform_permit(p_holder text) returns void language plpgsql as $$
declare
  held_ms double precision;
  t text;
begin
  delete from migrate.platform_permits where holder = p_holder
  returning tenant, extract(epoch from (clock_timestamp() - accepted_at)) * 1000 into t, held_ms;
  if t is not null and held_ms is not null then
    update migrate.platform_pace set hold_ms = case when hold_ms is null then held_ms else hold_ms * 0.9 + held_ms * 0.1 end
     where tenant = t;
  end if;
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

-- Down Migration
drop trigger platform_permit_release on migrate.account_attempts;
drop function migrate.platform_permit_release();
drop function migrate.free_platform_permit(text);
drop table migrate.platform_permit_waiters;
drop table migrate.platform_permits;
alter table migrate.platform_pace add column rate double precision, add column next_free_at timestamptz not null default '-infinity';
update migrate.platform_pace set rate = 2;
alter table migrate.platform_pace alter column rate set not null, drop column window_size, drop column hold_ms;
