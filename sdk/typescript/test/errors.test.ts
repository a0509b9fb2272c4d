import { beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, PermissionDeniedError, Slipway, SlipwayError, ValidationError } from '../src/index.ts';
import { harness, login, unique } from './support/env.ts';

async function failure(promise: Promise<unknown>): Promise<SlipwayError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof SlipwayError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

let writer: Slipway;
beforeAll(async () => {
  writer = new Slipway({ baseUrl: harness().base_url, accessToken: (await login(harness(), 'read write')).accessToken, maxRetries: 0 });
});

describe('API errors become typed errors with code, status, message, requestId and details', () => {
  it('404 not_found', async () => {
    const err = await failure(writer.projects.get('proj_doesnotexist'));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ code: 'not_found', status: 404, name: 'NotFoundError' });
    expect(err.message).toBeTruthy();
    expect(err.requestId).toBeTruthy();
    expect(err.requestId).toBe(err.headers!.get('x-request-id'));
  });

  it('422 validation_failed with details per field', async () => {
    const project = await writer.projects.create({ name: unique('invalid') });
    const err = await failure(writer.deployments.create(project.id, { environment: 'Not An Environment!', branch: 'main' }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ code: 'validation_failed', status: 422 });
    expect(err.details?.map((d) => d.field)).toContain('environment');
    expect(err.details?.every((d) => typeof d.message === 'string' && d.message.length > 0)).toBe(true);
  });

  it('403 insufficient_scope: a read token creating, a read+write API key deleting', async () => {
    const reader = new Slipway({ baseUrl: harness().base_url, accessToken: (await login(harness(), 'read')).accessToken, maxRetries: 0 });
    const err = await failure(reader.projects.create({ name: unique('nope') }));
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(err).toMatchObject({ code: 'insufficient_scope', status: 403 });

    const info = harness();
    const key = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key, maxRetries: 0 });
    const keyErr = await failure(key.projects.delete(info.api_key.project_id));
    expect(keyErr).toMatchObject({ code: 'insufficient_scope', status: 403 });
    expect((await key.projects.get(info.api_key.project_id)).id).toBe(info.api_key.project_id);
  });

  it('403 forbidden and 409 conflict', async () => {
    const viewer = new Slipway({ baseUrl: harness().base_url, accessToken: (await login(harness(), 'read write', 'viewer')).accessToken, maxRetries: 0 });
    const forbidden = await failure(viewer.projects.create({ name: unique('viewer') }));
    expect(forbidden).toBeInstanceOf(PermissionDeniedError);
    expect(forbidden.code).toBe('forbidden');

    const name = unique('dup');
    await writer.projects.create({ name });
    const conflict = await failure(writer.projects.create({ name: name.toUpperCase() }));
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ code: 'conflict', status: 409 });
  });
});
