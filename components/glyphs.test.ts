import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

/**
 * Characters the dashboard's text must not hold: Halfwidth and Fullwidth
 * Forms (U+FF00–U+FFEF, such as "＋"), which Debian's fonts (DejaVu) lack,
 * so they render as a missing-glyph box.
 */
const MISSING = /[\uFF00-\uFFEF]/u;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sources(full);
    return /\.(tsx?|css)$/.test(entry) && !entry.includes('.test.') ? [full] : [];
  });
}

describe('components: glyphs', () => {
  it('uses no character the fonts lack', () => {
    const found = sources(path.join(process.cwd(), 'components')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (MISSING.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    assert.deepEqual(found, []);
  });
});
