import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_READ_BACK_QUERY, graphqlOperations, OBTAIN_TOKEN_MUTATION, prunedSchemaSdl } from '../../../contract/graphql';
import { derivePrunedSdl, pruneSchema } from '../../../contract/graphql-derive';
import { printSchema } from 'graphql';

const schema = () => buildSchema(prunedSchemaSdl());
const errorsOf = (query: string) => validate(schema(), parse(query)).map((e) => e.message);

describe('GraphQL operations the client sends (contract/graphql/)', () => {
  it('every operation file validates against the schema derived from the tenant SDL', () => {
    const ops = graphqlOperations();
    expect(Object.keys(ops).sort()).toEqual(['account-read-back.graphql', 'obtain-kraken-token.graphql']);
    for (const [name, op] of Object.entries(ops)) expect({ name, errors: errorsOf(op) }).toEqual({ name, errors: [] });
  });

  it('the client sends exactly those files', () => {
    expect(ACCOUNT_READ_BACK_QUERY).toBe(graphqlOperations()['account-read-back.graphql']);
    expect(OBTAIN_TOKEN_MUTATION).toBe(graphqlOperations()['obtain-kraken-token.graphql']);
  });

  it('refuses a field, an argument or a type the tenant lacks', () => {
    expect(errorsOf('query { account(accountNumber: "A-1") { number overdraft } }')).toEqual(['Cannot query field "overdraft" on type "AccountType".']);
    expect(errorsOf('query { account(accountNumber: "A-1") { balance(includeEverything: true) } }')).toEqual([
      'Unknown argument "includeEverything" on field "AccountType.balance".',
    ]);
    expect(errorsOf('query Q($n: AccountNumber!) { account(accountNumber: $n) { number } }')[0]).toMatch(/^Unknown type "AccountNumber"\./);
    expect(errorsOf('query { account { number } }')[0]).toMatch(/argument "accountNumber" of type "String!" is required/);
  });

  it('the committed schema holds exactly what the operations reach: pruning it again changes nothing', () => {
    const sdl = prunedSchemaSdl();
    const again = printSchema(pruneSchema(sdl, Object.values(graphqlOperations())));
    expect(
      sdl
        .split('\n')
        .filter((l) => !l.startsWith('#'))
        .join('\n')
        .trim(),
    ).toBe(again.trim());
  });

  it('pruning keeps selected fields and their arguments, drops the rest, and refuses an operation the source lacks', () => {
    const sdl = [
      'type Query { account(accountNumber: String!): Account  other: Int }',
      'type Account { number: String  balance(includeAllLedgers: Boolean = false, mode: Mode): Int!  secret: String  users: [User!]! }',
      'enum Mode { A B }',
      'type User { givenName: String!  email: String! }',
    ].join('\n');
    const out = derivePrunedSdl(sdl, ['query { account(accountNumber: "x") { number balance users { givenName } } }'], {
      source: 's.graphql',
      derivedOn: '2026-01-01',
    });
    expect(out).toMatch(/^# Derived by `npm run contract:update` from s.graphql \(sha256 [0-9a-f]{64}\) on 2026-01-01\./);
    expect(out).toContain('balance(includeAllLedgers: Boolean = false, mode: Mode): Int!');
    expect(out).toContain('enum Mode');
    expect(out).not.toContain('secret');
    expect(out).not.toContain('other');
    expect(out).not.toContain('email');
    expect(() => derivePrunedSdl(sdl, ['query { account(accountNumber: "x") { secretive } }'], { source: 's', derivedOn: 'd' })).toThrow(
      /does not validate against the tenant's schema: Cannot query field "secretive"/,
    );
  });
});
