-- Up Migration
-- Issue 39: the ledger's personal columns are sealed by the application (ledger/sealing.ts:
-- AES-256-GCM with the payload codec's keyring, the key id in each value). The SQL can no longer
-- look inside `inbox.raw`, so the one thing the rematch filters on there, the item kind of a
-- `post_import.*` event, is kept beside it (not personal). Rows written before this read as they were.
alter table migrate.inbox add column resource_type text;
update migrate.inbox
   set resource_type = coalesce(raw->'detail'->'payload'->>'resource_type', raw->'detail'->>'resource_type')
 where jsonb_typeof(raw) = 'object';

-- Down Migration
alter table migrate.inbox drop column resource_type;
