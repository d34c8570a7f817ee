import * as assert from 'node:assert';
import { analysisModelOf, defaultConfig, type HaikuConfig } from '../../../src/core/config';
import { configFromSettings } from '../../../src/vscode/settingsMapping';

function withModels(analysis: HaikuConfig['analysis']['model']): HaikuConfig {
  const config = defaultConfig();
  return { ...config, qa: { ...config.qa, model: { ...config.qa.model, baseUrl: 'http://qa.test/v1', name: 'qa-model', apiKey: 'qa-key', temperature: 0.3 } }, analysis: { model: analysis } };
}

describe('analysis.model', () => {
  it('falls back to qa.model; a name alone keeps the QA server and key; another server gets only its own key', () => {
    assert.deepStrictEqual(analysisModelOf(withModels({})), withModels({}).qa.model);
    assert.deepStrictEqual(analysisModelOf(withModels({ name: '  ' })), withModels({}).qa.model);
    const named = analysisModelOf(withModels({ name: 'coder' }));
    assert.deepStrictEqual([named.baseUrl, named.name, named.apiKey, named.temperature], ['http://qa.test/v1', 'coder', 'qa-key', 0.3]);
    const elsewhere = analysisModelOf(withModels({ baseUrl: 'http://analysis.test/v1', temperature: 0 }));
    assert.deepStrictEqual([elsewhere.baseUrl, elsewhere.name, elsewhere.apiKey, elsewhere.temperature], ['http://analysis.test/v1', 'qa-model', undefined, 0]);
  });

  it('haiku.analysis.model.* map onto analysis.model (empty when both are)', () => {
    const settings: Record<string, unknown> = { 'analysis.model.name': ' copilot/gpt-4.1 ', 'analysis.model.baseUrl': '' };
    assert.deepStrictEqual(configFromSettings((key) => settings[key], { defaultDatabaseUri: '/tmp/index' }).analysis, { model: { baseUrl: undefined, name: 'copilot/gpt-4.1' } });
    assert.deepStrictEqual(configFromSettings(() => undefined, { defaultDatabaseUri: '/tmp/index' }).analysis, { model: {} });
  });
});
