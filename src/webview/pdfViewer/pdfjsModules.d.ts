// pdf.js ships ES modules whose own typings TypeScript refuses in this CommonJS project; esbuild bundles the
// modules, and these map them to pdf.js's plain declaration files.
declare module 'pdfjs-dist/build/pdf.mjs' {
  export * from 'pdfjs-dist/types/src/pdf';
}
declare module 'pdfjs-dist/web/pdf_viewer.mjs' {
  export * from 'pdfjs-dist/types/web/pdf_viewer.component';
}
