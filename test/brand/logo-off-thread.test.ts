// Structure, not timing: no request-thread code decodes, sanitises or rasterises a logo itself. Every use goes
// through a LogoReader, which the runtime implements with the render pool's worker threads (api/brand/services.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

test('commands/ and api/ never call the in-thread logo readers or the SVG rasteriser', () => {
  const offenders = [...sources(path.join(root, 'commands')), ...sources(path.join(root, 'api'))].filter(
    (file) =>
      /(?<![.\w])(readLogoFile|renderableLogo|rasterizeSvg|rasterToPng|sanitizeSvg|inThreadLogoReader)\s*\(/.test(
        readFileSync(file, 'utf8'),
      ) || /from '[./]*infra\/brand\/svg\.js'/.test(readFileSync(file, 'utf8')),
  );
  expect(offenders.map((f) => path.relative(root, f))).toEqual([]);
});

test('the runtime reads logos through the render pool', () => {
  const services = readFileSync(path.join(root, 'api/brand/services.ts'), 'utf8');
  expect(services).toMatch(/read: \(bytes\) => rendering\.renderer\(\)\.readLogo\(bytes\)/);
  expect(services).toMatch(/renderable: \(bytes\) => rendering\.renderer\(\)\.renderableLogo\(bytes\)/);
});
