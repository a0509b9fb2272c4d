/* eslint-disable @typescript-eslint/no-explicit-any -- the document is untyped JSON */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/fixtures.ts';

/*
 * /openapi.json carries an example for every JSON request and response body (what Redoc, Swagger UI and
 * Postman show), and every example is valid against the schema beside it.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const server = useTestServer();
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

describe('/openapi.json examples', () => {
  it('every request and response body has an example, and each example conforms to its schema', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: 'doc' });
    let checked = 0;
    const missing: string[] = [];
    const invalid: string[] = [];
    const check = (where: string, media: any, path: string[]) => {
      const values: unknown[] = [];
      if ('example' in media) values.push(media.example);
      for (const example of Object.values(media.examples ?? {}) as { value: unknown }[]) values.push(example.value);
      if (values.length === 0) return missing.push(where);
      const validate = ajv.compile({ $ref: `doc#/${pointer(...path, 'schema')}` });
      for (const value of values) {
        checked++;
        if (!validate(value)) invalid.push(`${where}: ${JSON.stringify(value)} — ${JSON.stringify(validate.errors)}`);
      }
    };
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const request = op.requestBody?.content?.['application/json'];
        if (request) check(`${where} request`, request, ['paths', path, method, 'requestBody', 'content', 'application/json']);
        for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
          const media = response.content?.['application/json'];
          if (media) check(`${where} ${status}`, media, ['paths', path, method, 'responses', status, 'content', 'application/json']);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(invalid).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('/docs shows the examples the document carries', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    const html = await (await fetch(`${server.url}/docs`)).text();
    const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
    const created = doc.paths['/v1/projects'].post;
    expect(html).toContain(escape(JSON.stringify(created.requestBody.content['application/json'].example, null, 2)));
    expect(html).toContain(escape(JSON.stringify(created.responses['201'].content['application/json'].example, null, 2)));
  });
});
