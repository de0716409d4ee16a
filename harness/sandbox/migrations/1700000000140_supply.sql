-- Up Migration
-- The switch (sandbox/supply/): each meter point of an imported account that was sent a registration
-- flow, the status it has reached and the cohort that decides where it goes next. A point with no
-- row here is PRE_REGISTRATION. `flow_requests` counts every flow asked for it, refused or not, so a
-- test can tell a second flow for a point in progress from the first.
CREATE TABLE sandbox.meter_point_registrations (
  account_number text NOT NULL,
  mpxn text NOT NULL,
  market_name text NOT NULL,
  status text NOT NULL,
  cohort text NOT NULL,
  join_process_number text NOT NULL,
  flow_requests integer NOT NULL DEFAULT 0,
  flows_accepted integer NOT NULL DEFAULT 0,
  requested_at timestamptz NOT NULL DEFAULT now(),
  next_step_at timestamptz,
  modified_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_number, mpxn)
);
CREATE INDEX meter_point_registrations_due ON sandbox.meter_point_registrations (next_step_at) WHERE next_step_at IS NOT NULL;

-- Down Migration
DROP TABLE sandbox.meter_point_registrations;
