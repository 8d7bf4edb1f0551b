// Builds the page of allot ui into ../dist (embedded in the allot binary)
// and records in ../dist/manifest.json the hash of the sources and of each
// built file, which a Go test compares without Node.
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist');
mkdirSync(out, { recursive: true });

await esbuild.build({
  entryPoints: [join(here, 'src', 'main.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  legalComments: 'none',
  outfile: join(out, 'app.js'),
});
for (const f of ['index.html', 'style.css']) copyFileSync(join(here, 'src', f), join(out, f));

// The sources: every file under src, and the build's own files, by path
// relative to here, in byte order of the path (Go's sort.Strings).
const sources = ['build.mjs', 'package.json', 'package-lock.json', ...readdirSync(join(here, 'src')).map((f) => 'src/' + f)].sort();
const h = createHash('sha256');
for (const f of sources) {
  h.update(f + '\0');
  h.update(readFileSync(join(here, f)));
  h.update('\0');
}
const files = {};
for (const f of ['app.js', 'index.html', 'style.css']) files[f] = createHash('sha256').update(readFileSync(join(out, f))).digest('hex');
writeFileSync(join(out, 'manifest.json'), JSON.stringify({ sources: h.digest('hex'), files }, null, 2) + '\n');
