-- Up Migration
-- Each account's opening balance as sent (transfer_balance, else the sum of its ledgers) and as the
-- platform shows it (GraphQL balance(includeAllLedgers: true)), both in pence as exact numerics: the
-- run's balance checkpoint sums them. Null when not read (the record step's best-effort read failed).
alter table migrate.reconciliations
  add column source_balance_pence numeric,
  add column platform_balance_pence numeric;

-- Down Migration
alter table migrate.reconciliations drop column source_balance_pence, drop column platform_balance_pence;
