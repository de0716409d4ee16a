-- Up Migration
-- Each `supplier census` taken (cli/actions/census.ts): its counts, so that `report RUN` shows the
-- latest one for the run's supplier and a plan wave's gate can read it. The lists themselves are
-- not kept (a million numbers a census); the command prints them.
create table migrate.supplier_censuses (
  id bigserial primary key,
  supplier_code text not null,
  taken_at timestamptz not null default now(),
  stuck_after_seconds integer not null,
  counts jsonb not null
);
create index supplier_censuses_latest on migrate.supplier_censuses (supplier_code, taken_at desc);

-- Down Migration
drop table migrate.supplier_censuses;
