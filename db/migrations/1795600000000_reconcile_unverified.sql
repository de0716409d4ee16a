-- Up Migration
-- Reconciliation in three words: a check also keeps how many compared leaves matched, how many the
-- platform's record does not contain (unverified: nothing was read, so never a difference), and per
-- field (indexes as `*`) the leaves matched, differing and unverified, as `{field: [m, d, u]}`.
-- Field names and counts only: values stay in migrate.reconciliation_differences.
alter table migrate.reconciliations
  add column matched_fields integer not null default 0,
  add column unverified_fields integer not null default 0,
  add column field_counts jsonb not null default '{}';

-- Down Migration
alter table migrate.reconciliations drop column matched_fields, drop column unverified_fields, drop column field_counts;
