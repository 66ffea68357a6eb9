import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptsGzip, matchingTag } from '../../src/countries/static-json.js';
import { stateByCode } from '../../src/geo/countries.js';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

interface CountryBody {
  id: number;
  name: string;
  iso: string;
  iso3: string;
  states: Array<{ id: number; name: string; code: string }>;
}

/** A request with no Authorization header: the countries need no API key. */
function get(url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url, headers });
}

describe('GET /v1/countries', () => {
  it('lists countries with ISO ids and codes, and states with ids, without an API key', async () => {
    const res = await get('/v1/countries');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const countries = res.json() as CountryBody[];
    expect(countries.length).toBeGreaterThan(240);
    const us = countries.find((c) => c.id === 840);
    expect(us).toMatchObject({ id: 840, name: expect.stringMatching(/United States/), iso: 'US', iso3: 'USA' });
    expect(us!.states.find((s) => s.code === 'US-NY')).toMatchObject({ name: 'New York' });
    const canada = countries.find((c) => c.id === 124)!;
    expect(canada).toMatchObject({ id: 124, name: 'Canada', iso: 'CA', iso3: 'CAN' });
    const ontario = canada.states.find((s) => s.name === 'Ontario');
    expect(ontario).toEqual({ id: stateByCode('CA-ON')!.id, name: 'Ontario', code: 'CA-ON' });
    expect(ontario!.id).toBe(12400887);
    for (const c of countries) expect(Object.keys(c).sort()).toEqual(['id', 'iso', 'iso3', 'name', 'states']);
  });

  it('is cacheable: strong ETag, public max-age of a day, the same ETag every time', async () => {
    const first = await get('/v1/countries');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=86400');
    expect(first.headers.vary).toMatch(/accept-encoding/i);
    const second = await get('/v1/countries');
    expect(second.headers.etag).toBe(etag);
    expect(second.body).toBe(first.body);
  });

  it('answers a matching If-None-Match with 304 and no body', async () => {
    const { etag } = (await get('/v1/countries')).headers as { etag: string };
    for (const header of [etag, `W/${etag}`, `"something-else", ${etag}`, '*']) {
      const res = await get('/v1/countries', { 'if-none-match': header });
      expect(res.statusCode, header).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['cache-control']).toBe('public, max-age=86400');
    }
  });

  it('answers an If-None-Match that does not match with the full list', async () => {
    const res = await get('/v1/countries', { 'if-none-match': '"stale"' });
    expect(res.statusCode).toBe(200);
    expect((res.json() as CountryBody[]).some((c) => c.id === 124)).toBe(true);
  });

  it('sends a body compressed once with gzip, under its own ETag, when the client accepts it', async () => {
    const plain = await get('/v1/countries');
    const zipped = await get('/v1/countries', { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString('utf8')).toBe(plain.body);
    expect(zipped.headers.etag).not.toBe(plain.headers.etag);
    const again = await get('/v1/countries', { 'accept-encoding': 'gzip', 'if-none-match': zipped.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.headers.etag).toBe(zipped.headers.etag);
    const refused = await get('/v1/countries', { 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('still checks the key on other routes', async () => {
    expect((await get('/v1/customers')).statusCode).toBe(401);
  });
});

describe('GET /v1/countries/{id}', () => {
  it('reads one country by its numeric id', async () => {
    const res = await get('/v1/countries/124');
    expect(res.statusCode, res.body).toBe(200);
    const canada = res.json() as CountryBody;
    expect(canada).toMatchObject({ id: 124, name: 'Canada', iso: 'CA', iso3: 'CAN' });
    expect(canada.states).toContainEqual({ id: 12400887, name: 'Ontario', code: 'CA-ON' });
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
  });

  it.each(['CA', 'ca', 'CAN', '124', '0124'])('accepts %s as the id of Canada', async (id) => {
    const res = await get(`/v1/countries/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().id).toBe(124);
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const { etag } = (await get('/v1/countries/840')).headers as { etag: string };
    const res = await get('/v1/countries/840', { 'if-none-match': etag });
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe('');
  });

  it.each(['9999', 'ZZ', 'ZZZ', 'not-a-country'])('answers 404 for %s in the spec error body', async (id) => {
    const res = await get(`/v1/countries/${id}`);
    expect(res.statusCode).toBe(404);
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'not_found' }]);
  });

  it('is documented in the OpenAPI document as needing no key', async () => {
    const doc = (await get('/v1/openapi.json')).json() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    expect(doc.paths['/v1/countries']?.get?.security).toEqual([]);
    expect(doc.paths['/v1/countries/{countryId}']?.get?.security).toEqual([]);
  });
});

describe('conditional-request helpers', () => {
  it('reads Accept-Encoding q-values', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.5')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('*;q=0, identity')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
  });

  it('compares If-None-Match weakly against a list of tags', () => {
    expect(matchingTag('"a"', ['"a"'])).toBe('"a"');
    expect(matchingTag('W/"a"', ['"a"'])).toBe('"a"');
    expect(matchingTag('"x", W/"b"', ['"a"', '"b"'])).toBe('"b"');
    expect(matchingTag('"x"', ['"a"'])).toBeUndefined();
    expect(matchingTag(' * ', ['"a"'])).toBe('*');
    expect(matchingTag(undefined, ['"a"'])).toBeUndefined();
  });
});
