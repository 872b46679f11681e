// Renders in the workspace's brand: with a kit (colours, fonts, a logo from the media library) options show the
// brand as renders use it, a render shows the logo by default (and not with includeLogo false) and uses the
// brand colours; and an AI background with too few credits left is refused before the provider is asked.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CreditLedgerStore } from '../../../commands/billing/credit-ledger-store.js';
import { CreditsService } from '../../../commands/billing/credits.js';
import { ensureStarted } from '../../../commands/billing/subscription-commands.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { dataOf, download, errorOf, mediaList, pngOf, uploadPng } from './support.js';

let provider: http.Server;
let providerCalls = 0;
let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  provider = http.createServer((req, res) => {
    providerCalls++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ created: 1, data: [{ b64_json: pngOf(1024, 1024).toString('base64') }] }));
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  service = await startTestService({
    env: {
      IMAGE_GENERATION_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`,
      IMAGE_GENERATION_API_KEY: 'sk-local',
    },
  });
  ws = await createTestWorkspace(service, 'Visuals brand');
}, 120_000);
afterAll(async () => {
  await service?.stop();
  provider?.closeAllConnections();
  await new Promise((resolve) => provider?.close(resolve));
});

function pixels(bytes: Uint8Array): PNG {
  return PNG.sync.read(Buffer.from(bytes));
}

/** The share of pixels that differ between two PNGs of one size. */
function differing(a: PNG, b: PNG): number {
  let count = 0;
  for (let i = 0; i < a.data.length; i += 4)
    if (
      Math.abs(a.data[i]! - b.data[i]!) +
        Math.abs(a.data[i + 1]! - b.data[i + 1]!) +
        Math.abs(a.data[i + 2]! - b.data[i + 2]!) >
      30
    )
      count++;
  return count / (a.width * a.height);
}

describe('the brand kit', () => {
  test('options show the kit; renders use its colours and show its logo unless told not to', async () => {
    // A solid red square as the logo, so it shows in the render's pixels.
    const logo = new PNG({ width: 200, height: 200 });
    for (let i = 0; i < logo.data.length; i += 4) logo.data.set([230, 20, 20, 255], i);
    const logoId = await uploadPng(service, ws, PNG.sync.write(logo));
    const kit = await service.request('PATCH', `/v1/orgs/${ws.orgId}/brand/kit`, {
      token: ws.tokens.editor,
      body: {
        colors: { primary: '#0b3d91', secondary: '#1a73e8', accent: '#ff8a00' },
        headingFont: 'Montserrat',
        bodyFont: 'Lora',
        logo: { assetId: logoId },
      },
    });
    expect(kit.status, await kit.clone().text()).toBe(200);

    const options = await dataOf<{ brand: Record<string, unknown> }>(
      await service.request('GET', `${ws.base}/visuals/options?includeAllModels=false`, {
        token: ws.tokens.viewer,
      }),
    );
    expect(options.brand).toEqual({
      colors: ['#0b3d91', '#1a73e8', '#ff8a00'],
      headingFont: 'Montserrat',
      bodyFont: 'Lora',
      background: null,
      hasLogo: true,
      logo: { width: 200, height: 200 },
    });

    const render = async (includeLogo?: boolean) => {
      const out = await dataOf<{ images: Array<{ url: string }> }>(
        await service.request('POST', `${ws.base}/visuals/image`, {
          token: ws.tokens.editor,
          body: {
            content: { title: 'In our colours' },
            ...(includeLogo === undefined ? {} : { includeLogo }),
          },
        }),
      );
      return pixels(await download(service, out.images[0]!.url));
    };
    const withLogo = await render();
    const withoutLogo = await render(false);
    // The logo is a small part of the canvas: some pixels differ, most do not.
    const share = differing(withLogo, withoutLogo);
    expect(share).toBeGreaterThan(0.001);
    expect(share).toBeLessThan(0.2);
    let red = 0;
    for (let i = 0; i < withLogo.data.length; i += 4)
      if (withLogo.data[i]! > 200 && withLogo.data[i + 1]! < 60 && withLogo.data[i + 2]! < 60) red++;
    expect(red).toBeGreaterThan(100);
    // The brand theme draws on the primary colour, with the accent as a detail.
    const [r, g, b] = [withLogo.data[40]!, withLogo.data[41]!, withLogo.data[42]!];
    expect(Math.abs(r - 0x0b) + Math.abs(g - 0x3d) + Math.abs(b - 0x91)).toBeLessThan(40);
    let orange = 0;
    for (let i = 0; i < withLogo.data.length; i += 4) {
      const [pr, pg, pb] = [withLogo.data[i]!, withLogo.data[i + 1]!, withLogo.data[i + 2]!];
      if (pr > 220 && pg > 110 && pg < 200 && pb < 120) orange++;
    }
    expect(orange).toBeGreaterThan(100);
  });
});

describe('credits', () => {
  test('an AI background with fewer credits left than it costs is a 402, before the provider is asked', async () => {
    const catalog = new BillingCatalog(loadBillingConfig(defaultBillingConfigFile));
    const now = () => new Date();
    const commands = service.runtime.commands;
    const credits = new CreditsService({
      commands,
      catalog,
      store: new CreditLedgerStore(service.runtime.database.db),
      now,
      ensureStarted: async (orgId) => (await ensureStarted({ commands, catalog, now }, orgId)).state,
      readModels: service.runtime.readModels,
    });
    const { creditBalance } = await credits.summaryOf(ws.orgId);
    // Leave fewer than one AI background costs.
    const cost = catalog.actionCost('ai_background')!.credits;
    await credits.spend({
      orgId: ws.orgId,
      key: 'drain',
      credits: creditBalance.total - (cost - 1),
      metricKey: 'test',
    });
    const listed = (await mediaList(service, ws)).total;
    const calls = providerCalls;
    const refused = await errorOf(
      await service.request('POST', `${ws.base}/visuals/image`, {
        token: ws.tokens.editor,
        body: { content: { title: 'x' }, aiBackground: { prompt: 'a field of flowers' } },
      }),
      402,
    );
    expect(refused.code).toBe('fair_use_limit');
    expect(refused.error).toMatch(new RegExp(`costs ${cost} credits`));
    expect(providerCalls).toBe(calls);
    expect((await mediaList(service, ws)).total).toBe(listed);
  });
});
