import * as fs from 'node:fs';
import * as path from 'node:path';
import { numberFlag, stringFlag, type CliCommand } from '../command';
import { commandConfig } from '../../config/cliConfig';
import { visualizeChunk } from '../../visualize/visualizeChunk';
import { DATABASE_OPTIONS, printJson, wantsJson, withStore } from '../indexAccess';

export const visualizeCommand: CliCommand = {
  name: 'visualize',
  arguments: [{ syntax: '<chunk_id>', description: 'A chunk id from `haiku search --json` (chunk_id) or a citation; the chunk must come from a PDF.' }],
  summary: "Draw a PDF chunk on its page: its own lines highlighted, the context around it faintly",
  description:
    "Render the page of a PDF chunk to a PNG image with the chunk's own items highlighted strongly and the context that search expansion sweeps in around it faintly. A chunk spanning two pages writes one image per page (file-p2.png, …).",
  options: [
    ...DATABASE_OPTIONS,
    { flags: '--out <file>', description: 'Where to write the PNG (default: <chunk_id>.png in the current folder).' },
    { flags: '--no-expand', description: 'Highlight only the chunk itself, without its surrounding context.' },
    { flags: '--scale <number>', description: 'Pixels per PDF point (default 2, about 144 dpi).', value: 'positive number' },
  ],
  examples: ['haiku visualize 3f2a9c…  --out chunk.png', 'haiku visualize 3f2a9c… --no-expand'],
  async run(context) {
    const [chunkId] = context.positionals;
    const result = await withStore(context, {}, (store) =>
      visualizeChunk({
        knowledgeBase: store,
        chunkId,
        expand: context.flags.expand !== false,
        maxContextChars: commandConfig(context).search.maxContextChars,
        scale: numberFlag(context, 'scale'),
        abortSignal: context.abortSignal,
      }),
    );
    const out = path.resolve(context.io.cwd, stringFlag(context, 'out') ?? `${chunkId}.png`);
    const written = result.pages.map((page, index) => {
      const file = index === 0 ? out : out.replace(/(\.png)?$/i, `-p${page.page}.png`);
      fs.writeFileSync(file, page.png);
      return { file, page: page.page, width: page.width, height: page.height, highlighted: page.strong.length, context: page.faint.length };
    });
    for (const warning of result.warnings) {
      context.io.stderr(`warning: ${warning}\n`);
    }
    if (wantsJson(context)) {
      printJson(context, { chunk_id: chunkId, document: result.documentPath, images: written, warnings: result.warnings });
    } else {
      for (const image of written) {
        context.io.stdout(`${image.file}: page ${image.page}, ${image.highlighted} highlighted box${image.highlighted === 1 ? '' : 'es'}, ${image.context} of context (${image.width}x${image.height})\n`);
      }
    }
    return 0;
  },
};
