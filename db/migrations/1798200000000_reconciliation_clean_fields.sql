-- Up Migration
-- A field's totals (1796000000000_operator_queries_at_scale.sql) written only for checks that found
-- something: a check whose every field matched (most of them) adds one to the row of its set of
-- fields, one of 16 a run (migrate.counter_shard), instead of one to each of its fields' rows (~35),
-- which every account of a run shared (docs/throughput.md, "Where the cost goes"). A field's matched
-- accounts are its totals' matched plus the clean checks of every set that holds it
-- (ledger/reconciliation.ts); differing and unverified are in its totals alone, as before.
create table migrate.reconciliation_clean_fields (
  run_id text not null,
  -- md5 of the fields: a set's key (the set itself may be too long for an index entry).
  fields_key text not null,
  shard smallint not null,
  fields text[] not null,
  n bigint not null default 0,
  primary key (run_id, fields_key, shard)
);

-- A check's fields, sorted, when every one matched (none differing, none unverified); null otherwise
-- or when it has none (an account missing).
create function migrate.reconciliation_clean_fields_of(field_counts jsonb) returns text[] language sql immutable parallel safe as $$
  select case when bool_and((f.value->>1)::int = 0 and (f.value->>2)::int = 0) then array_agg(f.key order by f.key) end
    from jsonb_each(field_counts) f
$$;

-- Each trigger one statement: the clean checks' sets counted, the others' fields totalled as before
-- (differing over unverified over matched); keys sorted, so concurrent statements lock rows in one order.
create or replace function migrate.reconciliation_field_totals_apply() returns trigger language plpgsql as $$
begin
  with c as (
    select x.run_id, x.external_account_number, x.field_counts, x.sign, migrate.reconciliation_clean_fields_of(x.field_counts) as clean
      from (select o.run_id, o.external_account_number, o.field_counts, -1 as sign from old_rows o
            union all
            select n.run_id, n.external_account_number, n.field_counts, 1 as sign from new_rows n) x),
  sets as (
    insert into migrate.reconciliation_clean_fields as t (run_id, fields_key, shard, fields, n)
    select run_id, md5(array_to_string(clean, E'\n')), migrate.counter_shard(external_account_number) as shard, clean, sum(sign)
      from c where clean is not null group by run_id, clean, shard having sum(sign) <> 0 order by 1, 2, 3
    on conflict (run_id, fields_key, shard) do update set n = t.n + excluded.n)
  insert into migrate.reconciliation_field_totals as t (run_id, field, matched, differing, unverified, any_unverified)
  select c.run_id, f.key, sum(c.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int), sum(c.sign * ((f.value->>1)::int > 0)::int),
         sum(c.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int), sum(c.sign * ((f.value->>2)::int > 0)::int)
    from c cross join lateral jsonb_each(c.field_counts) f
   where c.clean is null
   group by c.run_id, f.key
  having sum(c.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int) <> 0 or sum(c.sign * ((f.value->>1)::int > 0)::int) <> 0
      or sum(c.sign * ((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int) <> 0 or sum(c.sign * ((f.value->>2)::int > 0)::int) <> 0
   order by c.run_id, f.key
  on conflict (run_id, field) do update
    set matched = t.matched + excluded.matched, differing = t.differing + excluded.differing,
        unverified = t.unverified + excluded.unverified, any_unverified = t.any_unverified + excluded.any_unverified;
  return null;
end $$;

create or replace function migrate.reconciliation_field_totals_insert() returns trigger language plpgsql as $$
begin
  with c as (select n.run_id, n.external_account_number, n.field_counts, migrate.reconciliation_clean_fields_of(n.field_counts) as clean from new_rows n),
  sets as (
    insert into migrate.reconciliation_clean_fields as t (run_id, fields_key, shard, fields, n)
    select run_id, md5(array_to_string(clean, E'\n')), migrate.counter_shard(external_account_number) as shard, clean, count(*)
      from c where clean is not null group by run_id, clean, shard order by 1, 2, 3
    on conflict (run_id, fields_key, shard) do update set n = t.n + excluded.n)
  insert into migrate.reconciliation_field_totals as t (run_id, field, matched, differing, unverified, any_unverified)
  select c.run_id, f.key, sum(((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int), sum(((f.value->>1)::int > 0)::int),
         sum(((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int), sum(((f.value->>2)::int > 0)::int)
    from c cross join lateral jsonb_each(c.field_counts) f
   where c.clean is null
   group by c.run_id, f.key order by c.run_id, f.key
  on conflict (run_id, field) do update
    set matched = t.matched + excluded.matched, differing = t.differing + excluded.differing,
        unverified = t.unverified + excluded.unverified, any_unverified = t.any_unverified + excluded.any_unverified;
  return null;
end $$;

create or replace function migrate.reconciliation_field_totals_delete() returns trigger language plpgsql as $$
begin
  with c as (select o.run_id, o.external_account_number, o.field_counts, migrate.reconciliation_clean_fields_of(o.field_counts) as clean from old_rows o),
  sets as (
    insert into migrate.reconciliation_clean_fields as t (run_id, fields_key, shard, fields, n)
    select run_id, md5(array_to_string(clean, E'\n')), migrate.counter_shard(external_account_number) as shard, clean, -count(*)
      from c where clean is not null group by run_id, clean, shard order by 1, 2, 3
    on conflict (run_id, fields_key, shard) do update set n = t.n + excluded.n)
  insert into migrate.reconciliation_field_totals as t (run_id, field, matched, differing, unverified, any_unverified)
  select c.run_id, f.key, -sum(((f.value->>1)::int = 0 and (f.value->>2)::int = 0)::int), -sum(((f.value->>1)::int > 0)::int),
         -sum(((f.value->>1)::int = 0 and (f.value->>2)::int > 0)::int), -sum(((f.value->>2)::int > 0)::int)
    from c cross join lateral jsonb_each(c.field_counts) f
   where c.clean is null
   group by c.run_id, f.key order by c.run_id, f.key
  on conflict (run_id, field) do update
    set matched = t.matched + excluded.matched, differing = t.differing + excluded.differing,
        unverified = t.unverified + excluded.unverified, any_unverified = t.any_unverified + excluded.any_unverified;
  return null;
end $$;

-- Checks recorded before this migration, recounted: the clean ones into their sets, the rest into the totals.
delete from migrate.reconciliation_field_totals;
insert into migrate.reconciliation_clean_fields (run_id, fields_key, shard, fields, n)
select run_id, md5(array_to_string(clean, E'\n')), shard, clean, count(*)
  from (select run_id, migrate.counter_shard(external_account_number) as shard, migrate.reconciliation_clean_fields_of(field_counts) as clean
          from migrate.reconciliations) r
 where clean is not null group by run_id, clean, shard;
insert into migrate.reconciliation_field_totals (run_id, field, matched, differing, unverified, any_unverified)
select r.run_id, f.key, count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int = 0), count(*) filter (where (f.value->>1)::int > 0),
       count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int > 0), count(*) filter (where (f.value->>2)::int > 0)
  from migrate.reconciliations r cross join lateral jsonb_each(r.field_counts) f
 where migrate.reconciliation_clean_fields_of(r.field_counts) is null
 group by r.run_id, f.key;

-- Down Migration
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
create or replace function migrate.reconciliation_field_totals_insert() returns trigger language plpgsql as $$
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
create or replace function migrate.reconciliation_field_totals_delete() returns trigger language plpgsql as $$
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
delete from migrate.reconciliation_field_totals;
insert into migrate.reconciliation_field_totals (run_id, field, matched, differing, unverified, any_unverified)
select r.run_id, f.key, count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int = 0), count(*) filter (where (f.value->>1)::int > 0),
       count(*) filter (where (f.value->>1)::int = 0 and (f.value->>2)::int > 0), count(*) filter (where (f.value->>2)::int > 0)
  from migrate.reconciliations r cross join lateral jsonb_each(r.field_counts) f
 group by r.run_id, f.key;
drop function migrate.reconciliation_clean_fields_of(jsonb);
drop table migrate.reconciliation_clean_fields;
