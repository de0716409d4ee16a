-- Up Migration
-- Issue 39: the pipeline's role (created by the ledger's migrations, db/migrations) reads the
-- legacy source rows loaded into this database, and writes nothing there.
do $$
begin
  if exists (select from pg_roles where rolname = 'kraken_migrate_app') then
    grant usage on schema legacy to kraken_migrate_app;
    grant select on all tables in schema legacy to kraken_migrate_app;
    revoke all on legacy.pgmigrations from kraken_migrate_app;
    alter default privileges in schema legacy grant select on tables to kraken_migrate_app;
  end if;
end
$$;

-- Down Migration
do $$
begin
  if exists (select from pg_roles where rolname = 'kraken_migrate_app') then
    alter default privileges in schema legacy revoke all on tables from kraken_migrate_app;
    revoke all on all tables in schema legacy from kraken_migrate_app;
    revoke usage on schema legacy from kraken_migrate_app;
  end if;
end
$$;
