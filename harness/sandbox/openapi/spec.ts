import type { Contract, JsonSchemaObject } from '../../../contract';

/** The sandbox reads the contract derived into the repository (`contract/`), never the reference folder. */
export type { JsonSchemaObject };
export type OpenApiDocument = Pick<Contract, 'paths'> & { components: Pick<Contract['components'], 'schemas'> & Partial<Contract['components']> };
export { loadContract as loadSpec, requestExample } from '../../../contract';
