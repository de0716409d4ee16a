-- Up Migration
-- The losing supplier's CRM and billing export, as it arrives: text dates (DD/MM/YYYY), untrimmed
-- strings and nulls are kept on purpose. account_number is NOT unique: two legacy systems were
-- merged once, and a few numbers exist twice (see source/types.ts, conflicting_account_ids).

CREATE TABLE legacy.accounts (
  account_id      bigint PRIMARY KEY,
  account_number  text NOT NULL,
  brand           text,
  account_type    text,
  opened_on       text,
  billing_name    text,
  billing_line1   text,
  billing_line2   text,
  billing_town    text,
  billing_county  text,
  billing_postcode text,
  billing_email   text,
  payment_method  text,
  comms_pref      text,
  last_billed_to  text
);
CREATE INDEX accounts_number_idx ON legacy.accounts (account_number, account_id);

CREATE TABLE legacy.contacts (
  contact_id    bigint PRIMARY KEY,
  account_id    bigint NOT NULL REFERENCES legacy.accounts,
  is_primary    boolean NOT NULL DEFAULT false,
  title         text,
  first_name    text,
  surname       text,
  date_of_birth text,
  email         text,
  mobile_phone  text,
  home_phone    text
);
CREATE INDEX contacts_account_idx ON legacy.contacts (account_id);

CREATE TABLE legacy.supply_addresses (
  supply_address_id bigint PRIMARY KEY,
  account_id    bigint NOT NULL REFERENCES legacy.accounts,
  line1         text,
  line2         text,
  town          text,
  county        text,
  postcode      text,
  occupied_from text,
  occupied_to   text
);
CREATE INDEX supply_addresses_account_idx ON legacy.supply_addresses (account_id);

CREATE TABLE legacy.tariffs (
  tariff_code   text PRIMARY KEY,
  fuel          text NOT NULL,
  description   text
);

CREATE TABLE legacy.meter_points (
  meter_point_id    bigint PRIMARY KEY,
  supply_address_id bigint NOT NULL REFERENCES legacy.supply_addresses,
  fuel              text,
  mpxn              text,
  gsp_group         text,
  supplier_mpid     text,
  shipper_mpid      text,
  profile_class     integer,
  ssc               text,
  annual_consumption text,
  supply_start      text,
  supply_end        text
);
CREATE INDEX meter_points_address_idx ON legacy.meter_points (supply_address_id);

CREATE TABLE legacy.agreements (
  agreement_id   bigint PRIMARY KEY,
  meter_point_id bigint NOT NULL REFERENCES legacy.meter_points,
  tariff_code    text REFERENCES legacy.tariffs,
  start_date     text,
  end_date       text
);
CREATE INDEX agreements_meter_point_idx ON legacy.agreements (meter_point_id);

CREATE TABLE legacy.meters (
  meter_id       bigint PRIMARY KEY,
  meter_point_id bigint NOT NULL REFERENCES legacy.meter_points,
  serial_number  text,
  meter_type     text,
  installed_on   text,
  removed_on     text,
  dial_digits    integer
);
CREATE INDEX meters_meter_point_idx ON legacy.meters (meter_point_id);

CREATE TABLE legacy.registers (
  register_row_id bigint PRIMARY KEY,
  meter_id        bigint NOT NULL REFERENCES legacy.meters,
  register_code   text,
  tpr             text,
  digits          integer
);
CREATE INDEX registers_meter_idx ON legacy.registers (meter_id);

CREATE TABLE legacy.readings (
  reading_id    bigint PRIMARY KEY,
  meter_id      bigint NOT NULL REFERENCES legacy.meters,
  register_code text,
  read_date     text,
  read_value    text,
  read_type     text,
  is_transfer   boolean NOT NULL DEFAULT false,
  billed        boolean NOT NULL DEFAULT false
);
CREATE INDEX readings_meter_idx ON legacy.readings (meter_id);

CREATE TABLE legacy.balances (
  account_id bigint PRIMARY KEY REFERENCES legacy.accounts,
  balance    text,
  as_of      text
);

CREATE TABLE legacy.transactions (
  transaction_id bigint PRIMARY KEY,
  account_id     bigint NOT NULL REFERENCES legacy.accounts,
  posted_on      text,
  amount         text,
  txn_type       text,
  method         text,
  description    text
);
CREATE INDEX transactions_account_idx ON legacy.transactions (account_id);

CREATE TABLE legacy.payment_schedules (
  schedule_id  bigint PRIMARY KEY,
  account_id   bigint NOT NULL REFERENCES legacy.accounts,
  method       text,
  amount       text,
  frequency    text,
  day_of_month integer,
  start_date   text,
  end_date     text
);
CREATE INDEX payment_schedules_account_idx ON legacy.payment_schedules (account_id);

CREATE TABLE legacy.documents (
  document_id  bigint PRIMARY KEY,
  account_id   bigint NOT NULL REFERENCES legacy.accounts,
  kind         text NOT NULL,
  file_name    text NOT NULL,
  storage_path text NOT NULL,
  mime_type    text
);
CREATE INDEX documents_account_idx ON legacy.documents (account_id);

CREATE TABLE legacy.notes (
  note_id     bigint PRIMARY KEY,
  account_id  bigint NOT NULL REFERENCES legacy.accounts,
  created_at  text,
  body        text,
  document_id bigint REFERENCES legacy.documents
);
CREATE INDEX notes_account_idx ON legacy.notes (account_id);

CREATE TABLE legacy.bills (
  bill_id     bigint PRIMARY KEY,
  account_id  bigint NOT NULL REFERENCES legacy.accounts,
  period_from text,
  period_to   text,
  issued_on   text,
  amount      text,
  document_id bigint REFERENCES legacy.documents
);
CREATE INDEX bills_account_idx ON legacy.bills (account_id);

-- Ground truth written by the synthetic generator (source/generator.ts); absent for real data.
-- One row per external account number (what the pipeline migrates).
CREATE TABLE legacy.expected_outcomes (
  account_number  text PRIMARY KEY,
  defect          text,
  expected        jsonb NOT NULL
);

-- Down Migration
DROP TABLE legacy.expected_outcomes;
DROP TABLE legacy.bills;
DROP TABLE legacy.notes;
DROP TABLE legacy.documents;
DROP TABLE legacy.payment_schedules;
DROP TABLE legacy.transactions;
DROP TABLE legacy.balances;
DROP TABLE legacy.readings;
DROP TABLE legacy.registers;
DROP TABLE legacy.meters;
DROP TABLE legacy.agreements;
DROP TABLE legacy.meter_points;
DROP TABLE legacy.tariffs;
DROP TABLE legacy.supply_addresses;
DROP TABLE legacy.contacts;
DROP TABLE legacy.accounts;
