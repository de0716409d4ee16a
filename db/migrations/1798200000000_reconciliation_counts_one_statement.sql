-- Up Migration
-- A check recorded moves the run's counters in one statement (one trigger an event, not three) and
-- on rows that few other accounts share (docs/throughput.md, "Where the cost goes"):
-- - the status counts (1797400000000_run_outcome_summaries.sql) and the unverified and balance
--   totals (1797700000000_run_checkpoint_counts.sql) in 16 rows a run, as the checkpoint's counts are
--   (1798100000001_checkpoint_counts_sharded.sql);
-- - a field's totals (1796000000000_operator_queries_at_scale.sql) written only for checks that found
--   something: a check whose every field matched (most of them) adds one to the row of its set of
--   fields (again 16 a run), not one to each of its fields' rows (~35), which every account of a run
--   shared. A field's matched accounts are its totals' matched plus the clean checks of every set
--   that holds it; differing and unverified are in its totals alone, as before.
-- Readers sum a run's rows (ledger/reconciliation.ts).
create table migrate.reconciliation_clean_fields (
  run_id text not null,
  -- md5 of the fields: a set's key (the set itself may be too long for an index entry).
  fields_key text not null,
  shard smallint not null,
  -- Sorted.
  fields text[] not null,
  n bigint not null default 0,
  primary key (run_id, fields_key, shard)
);

drop trigger reconciliation_status_counts_delete on migrate.reconciliations;
drop trigger reconciliation_status_counts_update on migrate.reconciliations;
drop trigger reconciliation_status_counts_insert on migrate.reconciliations;
drop function migrate.reconciliation_status_counts_delete();
drop function migrate.reconciliation_status_counts_insert();
drop function migrate.reconciliation_status_counts_apply();
drop trigger reconciliation_run_totals_delete on migrate.reconciliations;
drop trigger reconciliation_run_totals_update on migrate.reconciliations;
drop trigger reconciliation_run_totals_insert on migrate.reconciliations;
drop function migrate.reconciliation_run_totals_apply();
drop function migrate.reconciliation_run_totals_delete();
drop function migrate.reconciliation_run_totals_insert();

-- Every counter of the checks: old rows subtract, new rows add (a replaced check is an update: both);
-- `clean`, a check's fields sorted when every one matched (none differing, none unverified), else
-- null (or none at all: an account missing). Keys sorted, so concurrent statements lock rows in one order.
create function migrate.reconciliation_counts_change() returns trigger language plpgsql as $$
begin
  with c as (
    select x.run_id, x.status, x.unverified_fields, x.field_counts, x.sign, migrate.counter_shard(x.external_account_number) as shard,
           x.source_balance_pence is not null and x.platform_balance_pence is not null as balanced, x.source_balance_pence, x.platform_balance_pence,
           (select case when bool_and((f.value->>1)::int = 0 and (f.value->>2)::int = 0) then array_agg(f.key order by f.key) end
              from jsonb_each(x.field_counts) f) as clean
      from (select run_id, external_account_number, status, unverified_fields, source_balance_pence, platform_balance_pence, field_counts,
                   case when TG_OP = 'INSERT' then 1 else -1 end as sign from changed_rows) x),
  statuses as (
    insert into migrate.reconciliation_status_counts as t (run_id, shard, status, n)
    select run_id, shard, status, sum(sign) from c group by 1, 2, 3 having sum(sign) <> 0 order by 1, 2, 3
    on conflict (run_id, shard, status) do update set n = t.n + excluded.n),
  totals as (
    insert into migrate.reconciliation_run_totals as t (run_id, shard, unverified, balance_accounts, source_pence, platform_pence)
    select run_id, shard, sum(sign * (unverified_fields > 0)::int), sum(sign * balanced::int),
           coalesce(sum(sign * source_balance_pence) filter (where balanced), 0), coalesce(sum(sign * platform_balance_pence) filter (where balanced), 0)
      from c group by 1, 2 order by 1, 2
    on conflict (run_id, shard) do update set unverified = t.unverified + excluded.unverified,
      balance_accounts = t.balance_accounts + excluded.balance_accounts,
      source_pence = t.source_pence + excluded.source_pence, platform_pence = t.platform_pence + excluded.platform_pence),
  sets as (
    insert into migrate.reconciliation_clean_fields as t (run_id, fields_key, shard, fields, n)
    select run_id, md5(array_to_string(clean, E'\n')), shard, clean, sum(sign)
      from c where clean is not null group by run_id, clean, shard having sum(sign) <> 0 order by 1, 2, 3
    on conflict (run_id, fields_key, shard) do update set n = t.n + excluded.n)
  insert into migrate.reconciliation_field_totals as t (run_id, field, matched, differing, unverified, any_unverified)
  select run_id, field, sum(m), sum(d), sum(u), sum(a)
    from (select c.run_id, f.key as field, c.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int as m,
                 c.sign * ((f.value->>1)::int > 0)::int as d, c.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int as u,
                 c.sign * ((f.value->>2)::int > 0)::int as a
            from c cross join lateral jsonb_each(c.field_counts) f where c.clean is null) per_field
   group by run_id, field having sum(m) <> 0 or sum(d) <> 0 or sum(u) <> 0 or sum(a) <> 0 order by run_id, field
  on conflict (run_id, field) do update
    set matched = t.matched + excluded.matched, differing = t.differing + excluded.differing,
        unverified = t.unverified + excluded.unverified, any_unverified = t.any_unverified + excluded.any_unverified;
  return null;
end $$;

create or replace function migrate.reconciliation_field_totals_apply() returns trigger language plpgsql as $$
begin
  with c as (
    select x.run_id, x.status, x.unverified_fields, x.field_counts, x.sign, migrate.counter_shard(x.external_account_number) as shard,
           x.source_balance_pence is not null and x.platform_balance_pence is not null as balanced, x.source_balance_pence, x.platform_balance_pence,
           (select case when bool_and((f.value->>1)::int = 0 and (f.value->>2)::int = 0) then array_agg(f.key order by f.key) end
              from jsonb_each(x.field_counts) f) as clean
      from (select run_id, external_account_number, status, unverified_fields, source_balance_pence, platform_balance_pence, field_counts, -1 as sign from old_rows
            union all
            select run_id, external_account_number, status, unverified_fields, source_balance_pence, platform_balance_pence, field_counts, 1 as sign from new_rows) x),
  statuses as (
    insert into migrate.reconciliation_status_counts as t (run_id, shard, status, n)
    select run_id, shard, status, sum(sign) from c group by 1, 2, 3 having sum(sign) <> 0 order by 1, 2, 3
    on conflict (run_id, shard, status) do update set n = t.n + excluded.n),
  totals as (
    insert into migrate.reconciliation_run_totals as t (run_id, shard, unverified, balance_accounts, source_pence, platform_pence)
    select run_id, shard, sum(sign * (unverified_fields > 0)::int), sum(sign * balanced::int),
           coalesce(sum(sign * source_balance_pence) filter (where balanced), 0), coalesce(sum(sign * platform_balance_pence) filter (where balanced), 0)
      from c group by 1, 2 order by 1, 2
    on conflict (run_id, shard) do update set unverified = t.unverified + excluded.unverified,
      balance_accounts = t.balance_accounts + excluded.balance_accounts,
      source_pence = t.source_pence + excluded.source_pence, platform_pence = t.platform_pence + excluded.platform_pence),
  sets as (
    insert into migrate.reconciliation_clean_fields as t (run_id, fields_key, shard, fields, n)
    select run_id, md5(array_to_string(clean, E'\n')), shard, clean, sum(sign)
      from c where clean is not null group by run_id, clean, shard having sum(sign) <> 0 order by 1, 2, 3
    on conflict (run_id, fields_key, shard) do update set n = t.n + excluded.n)
  insert into migrate.reconciliation_field_totals as t (run_id, field, matched, differing, unverified, any_unverified)
  select run_id, field, sum(m), sum(d), sum(u), sum(a)
    from (select c.run_id, f.key as field, c.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int as m,
                 c.sign * ((f.value->>1)::int > 0)::int as d, c.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int as u,
                 c.sign * ((f.value->>2)::int > 0)::int as a
            from c cross join lateral jsonb_each(c.field_counts) f where c.clean is null) per_field
   group by run_id, field having sum(m) <> 0 or sum(d) <> 0 or sum(u) <> 0 or sum(a) <> 0 order by run_id, field
  on conflict (run_id, field) do update
    set matched = t.matched + excluded.matched, differing = t.differing + excluded.differing,
        unverified = t.unverified + excluded.unverified, any_unverified = t.any_unverified + excluded.any_unverified;
  return null;
end $$;

drop trigger reconciliation_field_totals_insert on migrate.reconciliations;
drop trigger reconciliation_field_totals_delete on migrate.reconciliations;
drop function migrate.reconciliation_field_totals_insert();
drop function migrate.reconciliation_field_totals_delete();
-- An insert adds its rows, a delete (also the cascade from a deleted attempt) takes its rows away:
-- one function, the transition table named alike.
create trigger reconciliation_counts_insert after insert on migrate.reconciliations
  referencing new table as changed_rows for each statement execute function migrate.reconciliation_counts_change();
create trigger reconciliation_counts_delete after delete on migrate.reconciliations
  referencing old table as changed_rows for each statement execute function migrate.reconciliation_counts_change();


-- The counts so far, recounted into their rows.
delete from migrate.reconciliation_status_counts;
alter table migrate.reconciliation_status_counts add column shard smallint not null default 0;
alter table migrate.reconciliation_status_counts drop constraint reconciliation_status_counts_pkey, add primary key (run_id, shard, status);
delete from migrate.reconciliation_run_totals;
alter table migrate.reconciliation_run_totals add column shard smallint not null default 0;
alter table migrate.reconciliation_run_totals drop constraint reconciliation_run_totals_pkey, add primary key (run_id, shard);
delete from migrate.reconciliation_field_totals;
insert into migrate.reconciliation_status_counts (run_id, shard, status, n)
select run_id, migrate.counter_shard(external_account_number), status, count(*) from migrate.reconciliations group by 1, 2, 3;
insert into migrate.reconciliation_run_totals (run_id, shard, unverified, balance_accounts, source_pence, platform_pence)
select run_id, migrate.counter_shard(external_account_number), count(*) filter (where unverified_fields > 0),
       count(*) filter (where source_balance_pence is not null and platform_balance_pence is not null),
       coalesce(sum(source_balance_pence) filter (where source_balance_pence is not null and platform_balance_pence is not null), 0),
       coalesce(sum(platform_balance_pence) filter (where source_balance_pence is not null and platform_balance_pence is not null), 0)
  from migrate.reconciliations group by 1, 2;
create temporary table checks_now on commit drop as
  select run_id, migrate.counter_shard(external_account_number) as shard, field_counts,
         (select case when bool_and((f.value->>1)::int = 0 and (f.value->>2)::int = 0) then array_agg(f.key order by f.key) end
            from jsonb_each(field_counts) f) as clean
    from migrate.reconciliations;
insert into migrate.reconciliation_clean_fields (run_id, fields_key, shard, fields, n)
select run_id, md5(array_to_string(clean, E'\n')), shard, clean, count(*) from checks_now where clean is not null group by run_id, clean, shard;
insert into migrate.reconciliation_field_totals (run_id, field, matched, differing, unverified, any_unverified)
select r.run_id, f.key, count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int = 0), count(*) filter (where (f.value->>1)::int > 0),
       count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int > 0), count(*) filter (where (f.value->>2)::int > 0)
  from checks_now r cross join lateral jsonb_each(r.field_counts) f
 where r.clean is null
 group by r.run_id, f.key;

-- Down Migration
drop trigger reconciliation_counts_delete on migrate.reconciliations;
drop trigger reconciliation_counts_insert on migrate.reconciliations;
drop function migrate.reconciliation_counts_change();
create or replace function migrate.reconciliation_field_totals_apply() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_field_totals as t (run_id, field, matched, differing, unverified, any_unverified)
  select run_id, field, sum(m), sum(d), sum(u), sum(a) from (
    select x.run_id, f.key as field, x.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int as m,
           x.sign * ((f.value->>1)::int > 0)::int as d,
           x.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int as u,
           x.sign * ((f.value->>2)::int > 0)::int as a
      from (
        select o.run_id, o.field_counts, -1 as sign from old_rows o
        union all
        select n.run_id, n.field_counts, 1 as sign from new_rows n
      ) x cross join lateral jsonb_each(x.field_counts) f
  ) c
  group by run_id, field
  having sum(m) <> 0 or sum(d) <> 0 or sum(u) <> 0 or sum(a) <> 0
  order by run_id, field
  on conflict (run_id, field) do update
    set matched = t.matched + excluded.matched, differing = t.differing + excluded.differing,
        unverified = t.unverified + excluded.unverified, any_unverified = t.any_unverified + excluded.any_unverified;
  return null;
end $$;
create function migrate.reconciliation_field_totals_insert() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_field_totals as t (run_id, field, matched, differing, unverified, any_unverified)
  select n.run_id, f.key, sum(((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int), sum(((f.value->>1)::int > 0)::int),
         sum(((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int), sum(((f.value->>2)::int > 0)::int)
    from new_rows n cross join lateral jsonb_each(n.field_counts) f
   group by n.run_id, f.key order by n.run_id, f.key
  on conflict (run_id, field) do update
    set matched = t.matched + excluded.matched, differing = t.differing + excluded.differing,
        unverified = t.unverified + excluded.unverified, any_unverified = t.any_unverified + excluded.any_unverified;
  return null;
end $$;

create function migrate.reconciliation_field_totals_delete() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_field_totals as t (run_id, field, matched, differing, unverified, any_unverified)
  select o.run_id, f.key, -sum(((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int), -sum(((f.value->>1)::int > 0)::int),
         -sum(((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int), -sum(((f.value->>2)::int > 0)::int)
    from old_rows o cross join lateral jsonb_each(o.field_counts) f
   group by o.run_id, f.key order by o.run_id, f.key
  on conflict (run_id, field) do update
    set matched = t.matched + excluded.matched, differing = t.differing + excluded.differing,
        unverified = t.unverified + excluded.unverified, any_unverified = t.any_unverified + excluded.any_unverified;
  return null;
end $$;

create trigger reconciliation_field_totals_insert after insert on migrate.reconciliations
  referencing new table as new_rows for each statement execute function migrate.reconciliation_field_totals_insert();
create trigger reconciliation_field_totals_delete after delete on migrate.reconciliations
  referencing old table as old_rows for each statement execute function migrate.reconciliation_field_totals_delete();
alter table migrate.reconciliation_status_counts drop constraint reconciliation_status_counts_pkey, drop column shard;
alter table migrate.reconciliation_run_totals drop constraint reconciliation_run_totals_pkey, drop column shard;
delete from migrate.reconciliation_status_counts;
delete from migrate.reconciliation_run_totals;
alter table migrate.reconciliation_status_counts add primary key (run_id, status);
alter table migrate.reconciliation_run_totals add primary key (run_id);
delete from migrate.reconciliation_field_totals;
drop table migrate.reconciliation_clean_fields;
create function migrate.reconciliation_status_counts_apply() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_status_counts as t (run_id, status, n)
  select run_id, status, sum(sign) from (
    select run_id, status, -1 as sign from old_rows
    union all
    select run_id, status, 1 as sign from new_rows
  ) x group by 1, 2 having sum(sign) <> 0 order by 1, 2
  on conflict (run_id, status) do update set n = t.n + excluded.n;
  return null;
end $$;

create function migrate.reconciliation_status_counts_insert() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_status_counts as t (run_id, status, n)
  select run_id, status, count(*) from new_rows group by 1, 2 order by 1, 2
  on conflict (run_id, status) do update set n = t.n + excluded.n;
  return null;
end $$;

create function migrate.reconciliation_status_counts_delete() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_status_counts as t (run_id, status, n)
  select run_id, status, -count(*) from old_rows group by 1, 2 order by 1, 2
  on conflict (run_id, status) do update set n = t.n + excluded.n;
  return null;
end $$;

create trigger reconciliation_status_counts_insert after insert on migrate.reconciliations
  referencing new table as new_rows for each statement execute function migrate.reconciliation_status_counts_insert();
create trigger reconciliation_status_counts_update after update on migrate.reconciliations
  referencing old table as old_rows new table as new_rows for each statement execute function migrate.reconciliation_status_counts_apply();
create trigger reconciliation_status_counts_delete after delete on migrate.reconciliations
  referencing old table as old_rows for each statement execute function migrate.reconciliation_status_counts_delete();

create function migrate.reconciliation_run_totals_insert() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_run_totals as t (run_id, unverified, balance_accounts, source_pence, platform_pence)
  select run_id, sum(sign * (unverified_fields > 0)::int), sum(sign * balanced::int),
         coalesce(sum(sign * source_balance_pence) filter (where balanced), 0),
         coalesce(sum(sign * platform_balance_pence) filter (where balanced), 0)
    from (select run_id, unverified_fields, source_balance_pence, platform_balance_pence,
                 source_balance_pence is not null and platform_balance_pence is not null as balanced, sign
            from (select *, 1 as sign from new_rows) changed) x
   group by 1 order by 1
  on conflict (run_id) do update set unverified = t.unverified + excluded.unverified,
    balance_accounts = t.balance_accounts + excluded.balance_accounts,
    source_pence = t.source_pence + excluded.source_pence, platform_pence = t.platform_pence + excluded.platform_pence;
  return null;
end $$;

create function migrate.reconciliation_run_totals_delete() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_run_totals as t (run_id, unverified, balance_accounts, source_pence, platform_pence)
  select run_id, sum(sign * (unverified_fields > 0)::int), sum(sign * balanced::int),
         coalesce(sum(sign * source_balance_pence) filter (where balanced), 0),
         coalesce(sum(sign * platform_balance_pence) filter (where balanced), 0)
    from (select run_id, unverified_fields, source_balance_pence, platform_balance_pence,
                 source_balance_pence is not null and platform_balance_pence is not null as balanced, sign
            from (select *, -1 as sign from old_rows) changed) x
   group by 1 order by 1
  on conflict (run_id) do update set unverified = t.unverified + excluded.unverified,
    balance_accounts = t.balance_accounts + excluded.balance_accounts,
    source_pence = t.source_pence + excluded.source_pence, platform_pence = t.platform_pence + excluded.platform_pence;
  return null;
end $$;

create function migrate.reconciliation_run_totals_apply() returns trigger language plpgsql as $$
begin
  insert into migrate.reconciliation_run_totals as t (run_id, unverified, balance_accounts, source_pence, platform_pence)
  select run_id, sum(sign * (unverified_fields > 0)::int), sum(sign * balanced::int),
         coalesce(sum(sign * source_balance_pence) filter (where balanced), 0),
         coalesce(sum(sign * platform_balance_pence) filter (where balanced), 0)
    from (select run_id, unverified_fields, source_balance_pence, platform_balance_pence,
                 source_balance_pence is not null and platform_balance_pence is not null as balanced, sign
            from (select *, -1 as sign from old_rows union all select *, 1 as sign from new_rows) changed) x
   group by 1 order by 1
  on conflict (run_id) do update set unverified = t.unverified + excluded.unverified,
    balance_accounts = t.balance_accounts + excluded.balance_accounts,
    source_pence = t.source_pence + excluded.source_pence, platform_pence = t.platform_pence + excluded.platform_pence;
  return null;
end $$;

create trigger reconciliation_run_totals_insert after insert on migrate.reconciliations
  referencing new table as new_rows for each statement execute function migrate.reconciliation_run_totals_insert();
create trigger reconciliation_run_totals_update after update on migrate.reconciliations
  referencing old table as old_rows new table as new_rows for each statement execute function migrate.reconciliation_run_totals_apply();
create trigger reconciliation_run_totals_delete after delete on migrate.reconciliations
  referencing old table as old_rows for each statement execute function migrate.reconciliation_run_totals_delete();

insert into migrate.reconciliation_status_counts (run_id, status, n)
select run_id, status, count(*) from migrate.reconciliations group by 1, 2;
insert into migrate.reconciliation_run_totals (run_id, unverified, balance_accounts, source_pence, platform_pence)
select run_id, count(*) filter (where unverified_fields > 0),
       count(*) filter (where source_balance_pence is not null and platform_balance_pence is not null),
       coalesce(sum(source_balance_pence) filter (where source_balance_pence is not null and platform_balance_pence is not null), 0),
       coalesce(sum(platform_balance_pence) filter (where source_balance_pence is not null and platform_balance_pence is not null), 0)
  from migrate.reconciliations group by 1;
insert into migrate.reconciliation_field_totals (run_id, field, matched, differing, unverified, any_unverified)
select r.run_id, f.key, count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int = 0), count(*) filter (where (f.value->>1)::int > 0),
       count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int > 0), count(*) filter (where (f.value->>2)::int > 0)
  from migrate.reconciliations r cross join lateral jsonb_each(r.field_counts) f
 group by r.run_id, f.key;
