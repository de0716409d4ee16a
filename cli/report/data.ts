// The report's data is read through the ledger module (the one owner of migrate.*).
export * from '../../ledger/report-data';
