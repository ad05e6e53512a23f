import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTOMATIC_RELOAD, withoutAutomaticReload } from './automatic-reload';

describe('withoutAutomaticReload', () => {
  it('removes the marker pair, wherever it stands, and every other pair stays as written', () => {
    assert.equal(AUTOMATIC_RELOAD, 'reload=auto');
    assert.equal(withoutAutomaticReload('?size=25&reload=auto'), '?size=25');
    assert.equal(withoutAutomaticReload('?reload=auto&q=%22x%22&b'), '?q=%22x%22&b');
    assert.equal(withoutAutomaticReload('?a=1&reload=auto&a=2'), '?a=1&a=2');
    assert.equal(withoutAutomaticReload('?a=1&&b=+c'), '?a=1&&b=+c');
  });

  it('leaves no bare "?" once the marker was the only pair', () => {
    assert.equal(withoutAutomaticReload('?reload=auto'), '');
    assert.equal(withoutAutomaticReload('?reload=auto&reload=auto'), '');
    assert.equal(withoutAutomaticReload(''), '');
  });

  it('keeps pairs that only look like the marker', () => {
    for (const search of ['?reload=autos', '?reload=Auto', '?xreload=auto', '?reload=%61uto']) {
      assert.equal(withoutAutomaticReload(search), search);
    }
  });
});
