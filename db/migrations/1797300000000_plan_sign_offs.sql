-- Up Migration
-- Cutover plans (docs/plan.md): who signed a wave's entry or exit gate, when, and why. One row per
-- plan, wave and gate: the plan workflow's approve update writes it once (a retry finds it).
create table migrate.plan_sign_offs (
  plan_id text not null,
  wave text not null,
  gate text not null check (gate in ('entry', 'exit')),
  signed_by text not null,
  note text,
  signed_at timestamptz not null default now(),
  primary key (plan_id, wave, gate)
);

-- Down Migration
drop table migrate.plan_sign_offs;
