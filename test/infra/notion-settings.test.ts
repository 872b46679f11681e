// The context library's Notion variables (infra/notion/settings.ts): the client id and secret go together, the
// API address is https (http only on localhost, for a locally served Notion), and without them the sandbox answers.
import { describe, expect, test } from 'vitest';
import { loadEnv } from '../../api/env.js';
import { notionGatewayOf } from '../../api/context/services.js';

describe('Notion settings', () => {
  test('unset: the sandbox Notion, on this service’s consent page', () => {
    const env = loadEnv({});
    expect(env.NOTION_API_BASE_URL).toBe('https://api.notion.com');
    const gateway = notionGatewayOf(env, 'http://localhost:3000');
    expect(gateway.mode).toBe('sandbox');
    expect(gateway.authorizationUrl({ state: 's', redirectUri: 'http://localhost:3000/cb' })).toMatch(
      /^http:\/\/localhost:3000\/v1\/sandbox\/notion\/authorize\?/,
    );
  });

  test('client id and secret: the live Notion', () => {
    const env = loadEnv({ NOTION_CLIENT_ID: 'id', NOTION_CLIENT_SECRET: 'secret' });
    const gateway = notionGatewayOf(env, 'http://localhost:3000');
    expect(gateway.mode).toBe('live');
    expect(gateway.authorizationUrl({ state: 's', redirectUri: 'http://localhost:3000/cb' })).toMatch(
      /^https:\/\/api\.notion\.com\/v1\/oauth\/authorize\?client_id=id&/,
    );
  });

  test('refused: one of id and secret, an http address off localhost', () => {
    expect(() => loadEnv({ NOTION_CLIENT_ID: 'id' })).toThrow(/NOTION_CLIENT_SECRET/);
    expect(() => loadEnv({ NOTION_API_BASE_URL: 'http://notion.example' })).toThrow(/NOTION_API_BASE_URL/);
    expect(loadEnv({ NOTION_API_BASE_URL: 'http://127.0.0.1:9999' }).NOTION_API_BASE_URL).toBe(
      'http://127.0.0.1:9999',
    );
  });
});
