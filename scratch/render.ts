import * as fs from 'node:fs';
import { getResolvedPDFJS, createIsomorphicCanvasFactory } from 'unpdf';
async function main() {
  (ArrayBuffer.prototype as any).transferToFixedLength ??= function (this: ArrayBuffer, n?: number) { const c = new ArrayBuffer(n ?? this.byteLength); new Uint8Array(c).set(new Uint8Array(this, 0, Math.min(c.byteLength, this.byteLength))); return c; };
  const pdfjs: any = await getResolvedPDFJS();
  const CanvasFactory = await createIsomorphicCanvasFactory(() => import('@napi-rs/canvas'));
  const t0 = Date.now();
  const doc = await pdfjs.getDocument({ data: new Uint8Array(fs.readFileSync(process.argv[2])), verbosity: 0, isEvalSupported: false, CanvasFactory }).promise;
  const page = await doc.getPage(1);
  const viewport = page.getViewport({ scale: 2 });
  const factory = new CanvasFactory();
  const { canvas, context } = factory.create(viewport.width, viewport.height);
  await page.render({ canvas, canvasContext: context, viewport }).promise;
  const t = viewport.transform; const ap = (x: number, y: number) => [t[0]*x + t[2]*y + t[4], t[1]*x + t[3]*y + t[5]]; const [a, b] = [ap(72, 600), ap(300, 650)]; const rect = [...a, ...b];
  context.fillStyle = 'rgba(255, 200, 0, 0.35)';
  context.fillRect(Math.min(rect[0], rect[2]), Math.min(rect[1], rect[3]), Math.abs(rect[2] - rect[0]), Math.abs(rect[3] - rect[1]));
  fs.writeFileSync('/tmp/pic/render.png', canvas.toBuffer('image/png'));
  console.log('rendered', viewport.width, viewport.height, Date.now() - t0, 'ms');
}
main().catch((e) => { console.error(e); process.exit(1); });
