import type { CliCommand } from '../command';
import { HaikuError } from '../../../core/errors';

/** Placeholder until the converters land (owned by the converters work). */
export const convertCommand: CliCommand = {
  name: 'convert',
  usage: 'convert <file> [--json]',
  summary: "Convert a file and print its items and section tree",
  options: { json: { type: 'boolean' } },
  async run() {
    throw new HaikuError('unsupported_format', 'convert is not implemented yet');
  },
};
