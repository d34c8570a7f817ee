/** A random nonce for a webview's Content-Security-Policy. */
export function createNonce(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let nonce = '';
  for (let index = 0; index < 32; index++) {
    nonce += alphabet.charAt(Math.floor(Math.random() * alphabet.length));
  }
  return nonce;
}

/** What differs between Haiku's webview pages; the document around it (CSP meta, viewport) is the same for all. */
export interface WebviewDocumentParts {
  /** Content-Security-Policy directives, joined with `; `. */
  csp: readonly string[];
  title: string;
  /** Lines of `<head>` before the title (stylesheets, styles). */
  head: string;
  /** Attributes of `<body>`, each with its leading space. */
  bodyAttributes?: string;
  body: string;
}

export function webviewDocument(parts: WebviewDocumentParts): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${parts.csp.join('; ')}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${parts.head}
<title>${parts.title}</title>
</head>
<body${parts.bodyAttributes ?? ''}>
${parts.body}
</body>
</html>`;
}
