/** A source or payload file that cannot be read as a whole (not one account's problem): its code names why. */
export class SourceAdapterError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SourceAdapterError';
  }
}
