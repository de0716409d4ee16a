-- Up Migration
-- The schedule activity waits for the platform's event itself (activities/schedule.ts): after an
-- accepted answer it completes asynchronously, and the events router completes it with the event
-- (events/router.ts) instead of signalling the workflow. While it waits, the attempt names the
-- activity to complete and when its wait runs out (the events process then completes it without an
-- event, and the workflow reads the inbox and polls). No index: the sweep reads only open attempts
-- (`outcome is null`, already indexed), and an index here would cost every schedule an index write.
alter table migrate.account_attempts
  add column event_wait_activity_id text,
  add column event_wait_until timestamptz;

-- Down Migration
alter table migrate.account_attempts drop column event_wait_until, drop column event_wait_activity_id;
