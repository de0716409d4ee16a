export {
  type AccountSchemas,
  type ElectricityMeterPoint,
  type EnergyAccount,
  type EnergyCustomer,
  type GasMeterPoint,
  type MeterPoint,
  type ScheduleAccountCreation,
  type SupplyAddress,
  type TaskParams,
  type Transaction,
  accountSchemasFor,
  energyAccountSchema,
  scheduleAccountCreationSchema,
  taskParamsSchema,
} from './account';
export { meterPointSchema } from './account-meter-points';
export { transactionSchema } from './account-billing';
export {
  LOCAL_CODES,
  PLATFORM_CODES,
  type PlatformError,
  type ValidationError,
  ZOD_ISSUE_CODES,
  issuesToValidationErrors,
  parsePlatformErrorBody,
  sortErrors,
  validationErrorSchema,
} from './errors';
export {
  type CountryCode,
  DEFAULT_PHONE_REGION,
  isCalendarDate,
  isDecimalString,
  isMpanCore,
  isMprn,
  isUkPostcode,
  isUtcDateTime,
  isValidPhone,
} from './formats';
export { MAX_SCHEDULE_AHEAD_MS, type RuleContext, accountRuleErrors, taskParamsRuleErrors } from './rules';
export { type ValidateOptions, type ValidationResult, validateAccount, validateScheduleRequest } from './validate';
export { type DocumentPathRef, type DocumentPathResult, collectDocumentPaths, resolveDocumentPath } from './document-path';
export {
  DATA_IMPORT_EVENT_TYPES,
  type DataImportEventType,
  type EventEnvelope,
  type KnownEvent,
  type ParsedEvent,
  type UnknownEvent,
  type UnknownEventReason,
  dataImportEventSchemas,
  eventEnvelopeSchema,
  parseEvent,
} from './events';
export {
  IMPORT_STATUSES,
  isKnownImportStatus,
  type ImportStatus,
  type ImportStatusResponse,
  TERMINAL_IMPORT_STATUSES,
  importStatusResponseSchema,
} from './import-status';
export {
  type ListEnvelope,
  type Product,
  type StandardUnitRate,
  listEnvelopeSchema,
  productListSchema,
  productSchema,
  standardUnitRateListSchema,
  standardUnitRateSchema,
} from './catalogue';
export { exampleScheduleRequest, realisticAccount } from './fixtures';
export { type FileValidationResult, formatValidationLine, formatValidationLines, validateFile, validateRecord } from './validate-file';
