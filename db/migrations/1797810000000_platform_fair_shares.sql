-- Up Migration
-- Permits granted per fairness key of a tenant (domain/platform-pace.ts, capLeads and
-- choosePermitHolders): the window is shared by weight on what each key was granted, not on what it
-- holds now, so a run that reached the window first pays its lead back. Read and written under the
-- tenant's row lock in migrate.platform_pace, beside the permits, so every worker and run sees it.
create table migrate.platform_fair_shares (
  tenant text not null,
  fairness_key text not null,
  -- Permits granted to the key (less those given back without the tenant taking the account), its
  -- lead over the keys waiting beside it bounded by one window.
  granted double precision not null default 0,
  updated_at timestamptz not null default clock_timestamp(),
  primary key (tenant, fairness_key)
);

-- Down Migration
drop table migrate.platform_fair_shares;
