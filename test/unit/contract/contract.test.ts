import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveContract, parsePyYaml } from '../../../contract/derive';
import { loadContract, requestExample } from '../../../contract';

const repo = path.resolve(__dirname, '../../..');

describe('contract derivation (scripts/contract-update.ts)', () => {
  it('keeps PyYAML strings such as 07123456789 and 0393 as strings', () => {
    expect(parsePyYaml('a: 0393\nb: 12\nc: 0\nd: 07123456789\n')).toEqual({ a: '0393', b: 12, c: 0, d: '07123456789' });
  });

  it('drops prose but keeps rules, examples and properties that happen to be called description', () => {
    const yaml = [
      'openapi: 3.0.3',
      'info: {title: Kraken, version: v1}',
      'paths:',
      '  /v2/x/:',
      '    post:',
      '      summary: Schedule',
      '      description: Long prose.',
      '      requestBody:',
      '        content:',
      '          application/json:',
      '            examples:',
      '              ExamplePayload: {value: {description: kept, mobile: 07123456789}}',
      'components:',
      '  schemas:',
      '    Note:',
      '      type: object',
      '      description: A note.',
      '      properties:',
      '        description: {type: string, description: the note text}',
      '      x-validators:',
      '      - name: Validate it',
      '        description: prose',
      '        possible_errors: [blank]',
      '  securitySchemes:',
      '    Key: {type: apiKey, in: header, name: Authorization, description: required prefix "Token "}',
    ].join('\n');
    const c = deriveContract(yaml, { source: 'ref/spec.yml', derivedOn: '2026-01-02' });
    expect(c.paths['/v2/x/'].post).not.toHaveProperty('summary');
    expect(c.paths['/v2/x/'].post).not.toHaveProperty('description');
    expect((c.paths['/v2/x/'].post as any).requestBody.content['application/json'].examples.ExamplePayload.value).toEqual({
      description: 'kept',
      mobile: '07123456789',
    });
    expect(c.components.schemas.Note).toEqual({
      type: 'object',
      properties: { description: { type: 'string' } },
      'x-validators': [{ name: 'Validate it', possible_errors: ['blank'] }],
    });
    expect((c.components.securitySchemes.Key as any).description).toContain('Token ');
    expect(c['x-provenance']).toMatchObject({ source: 'ref/spec.yml', derivedOn: '2026-01-02', sourceTitle: 'Kraken', sourceVersion: 'v1' });
    expect(c['x-provenance'].sourceSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a document without paths or component schemas', () => {
    expect(() => deriveContract('openapi: 3.0.3\n', { source: 's', derivedOn: 'd' })).toThrow(/components\.schemas/);
  });
});

describe('the contract in the repository', () => {
  const contract = loadContract();

  it('says where it came from and when', () => {
    expect(contract['x-provenance'].source).toBe('kraken-data-import-openapi.yml');
    expect(contract['x-provenance'].derivedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('holds the data-import paths, both auth schemes, the validators with their codes and the examples', () => {
    expect(Object.keys(contract.paths)).toEqual(
      expect.arrayContaining([
        '/v2/data-import/accounts/',
        '/v2/data-import/accounts/validate/',
        '/v2/data-import/accounts/{import_supplier_code}/{external_identifier}/',
      ]),
    );
    expect(Object.keys(contract.components.securitySchemes).sort()).toEqual(['DRFKrakenTokenAuthentication', 'DataImportViewerAPIKeyAuthentication']);
    const mobile = (contract.components.schemas as any).CustomerDetail?.properties?.mobile ?? findProperty(contract.components.schemas, 'mobile');
    expect(JSON.stringify(mobile)).toContain('invalid_phone_number');
    const example = requestExample('/v2/data-import/accounts/', 'post') as any;
    expect(example.payload ?? example).toBeTruthy();
  });

  it('is the only source of the reference folder: no code or test outside the contract script names it', () => {
    const folder = ['shared', 'reference'].join('/'); // spelt apart so this file does not match itself
    const hits = execFileSync('git', ['grep', '--untracked', '-l', folder, '--', '*.ts', '*.js', '*.mjs', '*.json', '*.sh', '.ci/*'], {
      cwd: repo,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);
    expect(hits).toEqual(['scripts/contract-update.ts']);
  });
});

function findProperty(schemas: Record<string, any>, name: string): unknown {
  for (const s of Object.values(schemas)) if (s?.properties?.[name]) return s.properties[name];
  return undefined;
}
