import * as fs from 'node:fs';
import { convertPdf } from '../src/node/convert/pdf';
async function main() {
  for (const file of process.argv.slice(2)) {
    const t0 = Date.now();
    const doc = await convertPdf(fs.readFileSync(file), { fileName: file });
    console.log(file.split('/').pop(), Date.now() - t0, 'ms', doc.items.length, 'items', doc.warnings);
    doc.items.forEach((item, i) => { if (item.label === 'picture' || doc.items[i + 1]?.label === 'picture' || doc.items[i - 1]?.label === 'picture' || i < 3) console.log(' ', item.position, item.label, JSON.stringify(item.text.slice(0, 60)), item.pageNumbers, JSON.stringify(item.boxes?.slice(0, 2)), item.picture && { w: item.picture.width, h: item.picture.height, b: item.picture.bytes?.length }); });
  }
}
main();
