// Build the anywidget ESM bundles into the Python package (slimwidgets/widgets/static/),
// with the licence texts of every npm package bundled into them.
import { build } from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
// `node build.mjs --outdir DIR` builds elsewhere (the tests compare that with the shipped bundle)
const flag = process.argv.indexOf("--outdir");
const out = flag > 0 ? resolve(process.argv[flag + 1]) : resolve(here, "../slimwidgets/widgets/static");
mkdirSync(out, { recursive: true });
const result = await build({
  entryPoints: {
    card: resolve(here, "src/card.js"), chart: resolve(here, "src/chart.js"),
    alternatives: resolve(here, "src/alternatives.js"), cuts: resolve(here, "src/cuts.js"),
    groups: resolve(here, "src/groups.js"),
  },
  outdir: out,
  bundle: true,
  format: "esm",
  minify: true,
  target: ["es2020"],
  legalComments: "none",
  metafile: true,
  logLevel: flag > 0 ? "warning" : "info",
});
for (const css of ["card.css", "alternatives.css", "cuts.css", "groups.css"]) copyFileSync(resolve(here, "src", css), resolve(out, css));

const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) packages.set(m[1], join(here, "node_modules", m[1]));
}
const parts = ["Third-party software bundled into chart.js, card.js, alternatives.js, cuts.js and groups.js (built from js/ with esbuild).\n"];
for (const [name, dir] of [...packages].sort()) {
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = existsSync(dir) ? readdirSync(dir).find((f) => /^licen[cs]e/i.test(f)) : null;
  parts.push(`\n==== ${name} ${meta.version} (${meta.license || "see below"}) ====\n`);
  parts.push(file ? readFileSync(join(dir, file), "utf8") : "(no licence file in the package)\n");
}
writeFileSync(resolve(out, "THIRD_PARTY_LICENSES.txt"), parts.join(""));
console.log(`bundled ${packages.size} npm packages; licences in static/THIRD_PARTY_LICENSES.txt`);
