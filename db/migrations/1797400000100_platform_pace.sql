-- Up Migration
-- The pace of schedule calls to a tenant (domain/platform-pace.ts), shared by every worker and run
-- that calls it: one row per tenant (its data-import base URL), read and written under its row lock.
create table migrate.platform_pace (
  tenant text primary key,
  rate double precision not null,
  probing boolean not null default true,
  hold_until timestamptz not null default '-infinity',
  -- The next call's turn (evenly spaced at `rate`).
  next_free_at timestamptz not null default '-infinity',
  accepted bigint not null default 0,
  throttled bigint not null default 0,
  server_errors bigint not null default 0,
  updated_at timestamptz not null default now()
);

-- Down Migration
drop table migrate.platform_pace;
