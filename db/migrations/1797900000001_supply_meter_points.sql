-- Up Migration
-- The switch (workflows/supply.ts): each meter point of a created account on a run that sends
-- registration flows, as the tool last read it from the tenant. One row a point of an account of a
-- supplier, whichever run created it. `flow_refused` with `flow_error_detail`: the platform answered
-- REGISTRATION_FLOW_ERROR to the last flow sent; it is not sent again until an operator asks.
create table migrate.supply_meter_points (
  supplier_code text not null,
  external_account_number text not null,
  mpxn text not null,
  run_id text not null,
  account_number text not null,
  workflow_id text not null,
  status text not null,
  -- domain/supply.ts: where the tool left the point (a final class, or flow_refused); null while followed.
  outcome text,
  status_since timestamptz not null default clock_timestamp(),
  flows_sent integer not null default 0,
  last_flow_at timestamptz,
  flow_refused boolean not null default false,
  flow_errors integer not null default 0,
  flow_error_detail text,
  first_read_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  primary key (supplier_code, external_account_number, mpxn)
);
create index supply_meter_points_run on migrate.supply_meter_points (run_id);

-- Down Migration
drop table migrate.supply_meter_points;
