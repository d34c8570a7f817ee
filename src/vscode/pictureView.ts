import * as vscode from 'vscode';
import { COMMANDS } from './contributionIds';
import type { ExtensionKnowledgeBase } from './indexBackend';
import { parsePicturePath, PICTURE_SCHEME, picturePath } from './pictureViewModel';

/**
 * Pictures open as read-only files of the `haiku-picture:` scheme, so VS Code's own image preview (the built-in
 * media-preview extension, zoom included) shows them like any image in the workspace: no webview of ours, no CSP
 * to keep. The bytes come from the index on each read; nothing is written to disk.
 */
export class PictureFileSystem implements vscode.FileSystemProvider {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changeEmitter.event;

  constructor(private readonly knowledgeBase: () => Promise<ExtensionKnowledgeBase>) {}

  private async picture(uri: vscode.Uri): Promise<{ bytes: Uint8Array }> {
    const named = parsePicturePath(uri.path);
    const picture = named ? await (await this.knowledgeBase()).pictureBytes(named.documentId, named.selfRef) : undefined;
    if (!picture) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return picture;
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    if (!parsePicturePath(uri.path)) {
      // The document and picture folders exist for the image preview's resource roots (`<picture>/..`).
      return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0, permissions: vscode.FilePermission.Readonly };
    }
    const { bytes } = await this.picture(uri);
    return { type: vscode.FileType.File, ctime: 0, mtime: 0, size: bytes.byteLength, permissions: vscode.FilePermission.Readonly };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    return (await this.picture(uri)).bytes;
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  createDirectory(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  writeFile(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
}

/** What names a picture for opening: its document (id and relative path, for the tab's name), ref and image type. */
export interface PictureTarget {
  documentId: string;
  selfRef: string;
  documentPath: string;
  mimeType?: string;
}

/** The `haiku-picture:` URI of a picture, or undefined when the ref is not a picture's. */
export function pictureUri(target: PictureTarget): vscode.Uri | undefined {
  const path = picturePath(target.documentId, target.selfRef, target.documentPath, target.mimeType);
  return path ? vscode.Uri.from({ scheme: PICTURE_SCHEME, path }) : undefined;
}

/** Opens a picture in VS Code's image preview (a preview tab beside nothing: the active group). */
export async function openPicture(target: PictureTarget): Promise<void> {
  const uri = pictureUri(target);
  if (!uri) {
    void vscode.window.showWarningMessage(vscode.l10n.t('{0} is not a picture of {1}.', target.selfRef, target.documentPath));
    return;
  }
  await vscode.commands.executeCommand('vscode.open', uri, { preview: true });
}

/** The read-only picture files and the `haiku.openPicture` command the tree, the runs panel and the chat use. */
export function registerPictureView(knowledgeBase: () => Promise<ExtensionKnowledgeBase>): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.workspace.registerFileSystemProvider(PICTURE_SCHEME, new PictureFileSystem(knowledgeBase), { isReadonly: true, isCaseSensitive: true }),
    vscode.commands.registerCommand(COMMANDS.openPicture, (target: PictureTarget) => openPicture(target)),
  );
}

/**
 * The picture URIs of cited chunks, in citation order without repeats: the chat lists them as references (the
 * image type is not known here; the preview decodes the bytes whatever the name's extension says).
 */
export function citedPictureUris(citations: ReadonlyArray<{ documentId: string; uri: string; pictureRefs?: readonly string[] }>): vscode.Uri[] {
  const uris = new Map<string, vscode.Uri>();
  for (const citation of citations) {
    const documentPath = decodeURIComponent(vscode.Uri.parse(citation.uri).path);
    for (const selfRef of citation.pictureRefs ?? []) {
      const uri = pictureUri({ documentId: citation.documentId, selfRef, documentPath });
      if (uri) {
        uris.set(uri.toString(), uri);
      }
    }
  }
  return [...uris.values()];
}
