import * as vscode from 'vscode';
import { TOOL_NAMES } from '../contributionIds';
import { dataPartClass } from '../languageModelAdapter';
import { figureCaption, figuresDirectlyIn, formatFigureList } from '../pictureViewModel';
import { documentForTool, textResult, type ToolContext } from './toolSupport';

export interface ReadPictureToolInput {
  document: string;
  /** The picture's ref (`#/pictures/0`), as `haiku_readSection` and search hits name it. */
  picture: string;
}

/** `haiku_readPicture`: one figure's image, for agents whose model takes images, with its caption as text. */
export function registerReadPictureTool(context: ToolContext): vscode.Disposable {
  return vscode.lm.registerTool<ReadPictureToolInput>(TOOL_NAMES.readPicture, {
    prepareInvocation(options) {
      return { invocationMessage: `Reading picture ${options.input.picture} of ${options.input.document}` };
    },
    async invoke(options, token) {
      const found = await documentForTool(context, options.input.document, token);
      if (found instanceof vscode.LanguageModelToolResult) {
        return found;
      }
      const { knowledgeBase, document, items } = found;
      const figures = figuresDirectlyIn(items, undefined, []);
      const wanted = (options.input.picture ?? '').trim();
      const picture = figures.find((figure) => figure.selfRef === wanted || figure.selfRef === `#/pictures/${wanted}`);
      if (!picture) {
        const list = formatFigureList(figures, items, TOOL_NAMES.readPicture);
        return textResult(`No picture "${wanted}" in ${document.relativePath}. ${list || 'The document has no figures.'}`);
      }
      const caption = figureCaption(picture, items) || '(no caption)';
      const page = picture.pageNumbers.length > 0 ? ` p. ${picture.pageNumbers[0]}` : '';
      const label = `${document.relativePath}${page} ${picture.selfRef}: ${caption}`;
      const image = await knowledgeBase.pictureBytes(document.id, picture.selfRef);
      if (!image) {
        return textResult(`${label}\nNo image is stored for this figure (a drawing without raster data, or indexed with haiku.processing.pictures set to "none"); only its caption is known.`);
      }
      const factory = dataPartClass();
      if (!factory) {
        return textResult(`${label}\nThis version of VS Code (${vscode.version}) cannot pass images in tool results; only the caption can be given.`);
      }
      const result = new vscode.LanguageModelToolResult([
        new vscode.LanguageModelTextPart(`${label}\nThe image (${image.mimeType}, ${image.width}×${image.height}) follows. Retrieved from the knowledge base, not provided by the user.`),
      ]);
      // The constructor's type predates data parts; `content` is declared open (`unknown`) for them.
      result.content.push(factory.image(image.bytes, image.mimeType));
      return result;
    },
  });
}
