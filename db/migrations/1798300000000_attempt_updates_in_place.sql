-- Up Migration
-- An attempt's steps update its row in place (heap-only tuples: no new index entries, nothing for
-- vacuum to take out of the indexes; docs/throughput.md, "Where the cost goes"). An account's row is
-- updated five times (prepared, documents staged, scheduled with the stage's notes, awaiting the
-- event, the outcome) and, in a bench pass, none of those updates was in place: every one wrote a
-- new entry in each of the table's indexes. Two things stopped it:
-- - `stage`, which every step changes, was in two indexes, and Postgres updates in place only when
--   no indexed column (key, included, expression or predicate) changes. The counts by stage come
--   from the counters now (1797400000000_run_outcome_summaries.sql and later): the open accounts'
--   stages are read from their rows, a run's open accounts found by their index (they are the
--   accounts in flight), and no query reads the finished ones' stage through an index;
-- - full pages: a run opens its accounts together, their rows appended, and a page with no room
--   takes no new version until pruning frees the room of a row moved off it. With 30% of each new
--   page left for the rows' updates, all of 1,600 steps of 400 accounts were in place, 93% without
--   (test/unit/ledger/attempt-updates-in-place.test.ts); the heap is that much larger (about
--   390 MB for a million attempts instead of 270). Existing pages keep their layout until rewritten.
-- The outcome still moves the row's index entries (outcome, code, finish time): once an account.
drop index migrate.account_attempts_run_outcome_stage;
drop index migrate.account_attempts_open_by_run;
create index account_attempts_open_by_run on migrate.account_attempts (run_id) where outcome is null;
alter table migrate.account_attempts set (fillfactor = 70);

-- Down Migration
alter table migrate.account_attempts reset (fillfactor);
drop index migrate.account_attempts_open_by_run;
create index account_attempts_open_by_run on migrate.account_attempts (run_id, stage) where outcome is null;
create index account_attempts_run_outcome_stage on migrate.account_attempts (run_id, outcome, stage);
