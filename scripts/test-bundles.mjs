// The test files compiled to JavaScript once per run (run-tests.mjs), so each file's process loads
// plain modules instead of every source through tsx's hooks. Under tsx a file paid ~2 s of CPU before
// its first test, most of it the hooks' thread resolving and loading each module of the service one
// message at a time (docs/developing.md, "How long the suite takes"); the whole suite's TypeScript
// compiles here in about a second.
//
// What stays as it was: every module still sees its own source's location (`import.meta.url`,
// `dirname`, `filename` are written in as the .ts file's), so files read beside a module, spawned
// `--import tsx` children and `import.meta.url.endsWith(".ts")` checks behave as under tsx. Packages
// stay external: node_modules loads natively, as it did. Shared modules go to chunks (`splitting`), so
// the run compiles each source once.
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

/** `import.meta.url` / `.dirname` / `.filename` as the source file's own, written into its code. */
const sourceLocations = {
  name: "source-locations",
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.")) return { contents: text, loader: "ts" };
      const contents = text
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll("import.meta.dirname", JSON.stringify(path.dirname(args.path)))
        .replaceAll("import.meta.filename", JSON.stringify(args.path));
      return { contents, loader: "ts" };
    });
  },
};

/**
 * Packages compiled into the run's chunks instead of loaded from node_modules: ESM packages of hundreds
 * of small modules (kysely ~260, @sinclair/typebox ~200), which every test file loads and which Node
 * resolves, reads and links one file at a time. Neither reads files beside itself nor keeps state a
 * copy loaded natively would have to share (typebox's kinds are `Symbol.for` keys). Every other
 * package stays external, as production loads them.
 */
const BUNDLED_PACKAGES = /^(kysely|@sinclair\/typebox)(\/|$)/;

const packagesExternal = {
  name: "packages-external",
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      BUNDLED_PACKAGES.test(args.path) ? undefined : { path: args.path, external: true },
    );
  },
};

/** Whether process `pid` is alive (signal 0 checks without sending anything). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/** Folders of runs that ended without removing theirs (interrupted with Ctrl-C, killed). */
function removeLeftovers(parent) {
  let names = [];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names)
    if (!/^\d+$/.test(name) || !alive(Number(name)))
      rmSync(path.join(parent, name), { recursive: true, force: true });
}

/**
 * Compiles `files` (paths relative to `root`, in the order they should start) and `workers`
 * (name -> source) into a fresh folder of this run under `<root>/.test-build/`. node:test sorts the
 * files it is given by path, so each file's place is the start of its path: test/http/x.test.ts
 * becomes <folder>/<place>/test/http/x.test.mjs. Returns the compiled path of each test file, the
 * folder of the compiled workers (each `<name>.mjs`), and `remove()`, which deletes the folder.
 */
export async function bundleTests(root, files, workers = {}) {
  removeLeftovers(path.join(root, ".test-build"));
  const folder = path.join(root, ".test-build", String(process.pid));
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const width = String(files.length).length;
  const outputs = new Map(
    files.map((file, place) => [file, `${String(place).padStart(width, "0")}/${file.replace(/\.ts$/, "")}`]),
  );
  const entryPoints = [
    ...[...outputs].map(([file, out]) => ({ in: file, out })),
    ...Object.entries(workers).map(([name, source]) => ({ in: source, out: `workers/${name}` })),
  ];
  await build({
    absWorkingDir: root,
    entryPoints,
    outdir: folder,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "none",
    logLevel: "warning",
    plugins: [packagesExternal, sourceLocations],
  });
  return {
    folder,
    compiled: (file) => path.join(folder, `${outputs.get(file)}.mjs`),
    /** The folder of the compiled thread entries, each `<name>.mjs`. */
    workers: path.join(folder, "workers"),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}
