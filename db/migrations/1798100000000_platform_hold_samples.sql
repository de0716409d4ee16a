-- Up Migration
-- The measured hold time (platform_pace.hold_ms, 1797600000000_platform_permits.sql) off the tenant's
-- shared row when a permit is freed: every account's outcome used to update that row, waiting on its
-- lock behind the permit rounds (docs/throughput.md, "Where the cost goes"). A freed permit now adds
-- its hold to a table of samples (an insert: no shared row, no wait); the next answer, which holds the
-- row's lock already, folds them into the moving average in its own update, and readers fold in the
-- ones not yet folded (migrate.platform_hold_ms), so the average is the same as before at every read.
create table migrate.platform_permit_holds (
  tenant text not null,
  -- Order of freeing: the moving average weighs the latest most.
  id bigint generated always as identity,
  held_ms double precision not null,
  primary key (tenant, id)
);

-- The moving average (weight 0.1 to each new sample, the first one taken as it is) over samples in order.
create function migrate.platform_hold_fold(hold double precision, samples double precision[]) returns double precision
language plpgsql immutable as $$
declare
  s double precision;
begin
  foreach s in array coalesce(samples, '{}') loop
    hold := case when hold is null then s else hold * 0.9 + s * 0.1 end;
  end loop;
  return hold;
end $$;

-- A tenant's measured hold time now: the stored average with the samples not yet folded into it.
create function migrate.platform_hold_ms(p migrate.platform_pace) returns double precision language sql stable as $$
  select migrate.platform_hold_fold(p.hold_ms, array(select h.held_ms from migrate.platform_permit_holds h where h.tenant = p.tenant order by h.id))
$$;

create or replace function migrate.free_platform_permit(p_holder text) returns void language sql as $$
  with gone as (delete from migrate.platform_permits where holder = p_holder returning tenant, accepted_at)
  insert into migrate.platform_permit_holds (tenant, held_ms)
  select tenant, extract(epoch from (clock_timestamp() - accepted_at)) * 1000 from gone where accepted_at is not null
$$;

-- Down Migration
create or replace function migrate.free_platform_permit(p_holder text) returns void language plpgsql as $$
declare
  held_ms double precision;
  t text;
begin
  delete from migrate.platform_permits where holder = p_holder
  returning tenant, extract(epoch from (clock_timestamp() - accepted_at)) * 1000 into t, held_ms;
  if t is not null and held_ms is not null then
    update migrate.platform_pace set hold_ms = case when hold_ms is null then held_ms else hold_ms * 0.9 + held_ms * 0.1 end
     where tenant = t;
  end if;
end $$;
update migrate.platform_pace p set hold_ms = migrate.platform_hold_ms(p);
drop function migrate.platform_hold_ms(migrate.platform_pace);
drop function migrate.platform_hold_fold(double precision, double precision[]);
drop table migrate.platform_permit_holds;
