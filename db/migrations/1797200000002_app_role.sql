-- Up Migration
-- Issue 39: the role the pipeline connects as. No superuser, no DDL (no CREATE on any schema, owns
-- nothing), no role or database creation: it reads and writes the ledger's rows and nothing else.
-- The migration runner keeps connecting as the owner (the role that ran this). It is created
-- without a password (NOLOGIN); `kraken-migrate db migrate` gives it one from
-- KRAKEN_MIGRATE_APP_DB_PASSWORD (docker-compose.yml does), or an administrator does.
do $$
begin
  if not exists (select from pg_roles where rolname = 'kraken_migrate_app') then
    create role kraken_migrate_app nologin nosuperuser nocreatedb nocreaterole noreplication nobypassrls;
  end if;
end
$$;
do $$
begin
  execute format('grant connect on database %I to kraken_migrate_app', current_database());
end
$$;
-- No CREATE anywhere: Postgres 15+ no longer grants CREATE on `public` to everyone (compose runs 16).
grant usage on schema migrate to kraken_migrate_app;
grant select, insert, update, delete on all tables in schema migrate to kraken_migrate_app;
grant usage, select on all sequences in schema migrate to kraken_migrate_app;
-- The migrations' own bookkeeping is the owner's alone.
revoke all on migrate.pgmigrations from kraken_migrate_app;
-- Tables later migrations add (created by the owner running them) get the same grants.
alter default privileges in schema migrate grant select, insert, update, delete on tables to kraken_migrate_app;
alter default privileges in schema migrate grant usage, select on sequences to kraken_migrate_app;

-- Down Migration
alter default privileges in schema migrate revoke all on tables from kraken_migrate_app;
alter default privileges in schema migrate revoke all on sequences from kraken_migrate_app;
drop owned by kraken_migrate_app;
drop role if exists kraken_migrate_app;
