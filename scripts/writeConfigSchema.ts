/**
 * Writes schemas/haiku.config.schema.json from the zod schema of haiku.config.json (built from
 * `src/core/settingsTable.ts`). `npm run generate:settings` writes it with the other generated files; a unit test
 * fails when the checked-in file and the schema differ.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { configFileJsonSchema } from '../src/core/configFile';

export const CONFIG_SCHEMA_FILE = path.resolve(__dirname, '..', 'schemas', 'haiku.config.schema.json');

export function configSchemaText(): string {
  return `${JSON.stringify(configFileJsonSchema(), null, 2)}\n`;
}

if (require.main === module) {
  fs.writeFileSync(CONFIG_SCHEMA_FILE, configSchemaText());
  process.stdout.write(`Wrote ${CONFIG_SCHEMA_FILE}\n`);
}
