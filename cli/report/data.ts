// The report's data is read through the ledger module, the one owner of the ledger's SQL.
export * from '../../ledger/report-data';
export * from '../../ledger/report-csv';
