-- Up Migration
-- The blind-resend trap (fault `blindResendTrapMs`): a schedule repeated while an import is live opens
-- a second import, marked here; the one-live-import rule still holds for every other import.
ALTER TABLE sandbox.import_processes ADD COLUMN opened_by_repeat boolean NOT NULL DEFAULT false;
DROP INDEX sandbox.import_processes_one_live;
CREATE UNIQUE INDEX import_processes_one_live ON sandbox.import_processes (import_supplier, external_identifier)
  WHERE status IN ('PENDING', 'IN_PROGRESS') AND NOT opened_by_repeat;

-- Down Migration
DROP INDEX sandbox.import_processes_one_live;
CREATE UNIQUE INDEX import_processes_one_live ON sandbox.import_processes (import_supplier, external_identifier)
  WHERE status IN ('PENDING', 'IN_PROGRESS');
ALTER TABLE sandbox.import_processes DROP COLUMN opened_by_repeat;
