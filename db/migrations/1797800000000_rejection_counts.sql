-- Up Migration
-- Deliveries the events receiver refused before reading them (bad or missing credentials, too
-- large, unreadable, rate-limited): counted per minute, source kind and reason, not stored one row
-- each (a flood of forged requests was a flood of rows). Each receiver adds its counts every few
-- seconds (events/rejection-counter.ts); the inbox summary sums them with rejected_deliveries.
create table migrate.rejection_counts (
  minute timestamptz not null,
  received_via text not null,
  reason text not null,
  count bigint not null,
  primary key (minute, received_via, reason)
);

-- Down Migration
drop table migrate.rejection_counts;
