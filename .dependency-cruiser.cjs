/**
 * Module boundaries, checked by `npm run lint` (docs/developing.md draws the map).
 * A domain module (a folder under src/domain/) is used by others only through its index.ts; the
 * domain knows nothing of HTTP, Fastify or the simulated platform; only the HTTP layer imports src/http.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "domain-module-public-entry",
      comment:
        "Another domain module is used only through its index.ts (its one public entry). Export what you need from there.",
      severity: "error",
      from: { path: "^src/domain/([^/]+)/" },
      to: { path: "^src/domain/([^/]+)/", pathNot: ["^src/domain/$1/", "^src/domain/[^/]+/index[.]ts$"] },
    },
    {
      name: "outside-uses-public-entry",
      comment: "Code outside src/domain uses a domain module only through its index.ts.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/domain/" },
      to: { path: "^src/domain/[^/]+/", pathNot: "^src/domain/[^/]+/index[.]ts$" },
    },
    {
      name: "http-is-a-leaf-layer",
      comment:
        "Only the HTTP layer (app, runtime, modules' route composition, admin API, console) imports src/http. Move what you need to a layer-free place.",
      severity: "error",
      from: {
        path: "^src/",
        pathNot: [
          "^src/http/",
          "^src/app[.]ts$",
          "^src/runtime[.]ts$",
          "^src/modules/",
          "^src/admin/",
          "^src/console/",
          // The simulator stands in for an outside platform and brings its own admin routes (handed to
          // the admin API through PlatformDriver.adminRoutes); they answer in the API's schemas. Moving
          // them to src/admin would make the admin API import the simulated platform instead.
          "^src/platform/simulated/admin-routes[.]ts$",
        ],
      },
      to: { path: "^src/http/" },
    },
    {
      name: "domain-without-fastify",
      comment: "The domain runs in the worker and the CLI too: no web framework in it.",
      severity: "error",
      from: {
        path: "^src/(domain|db|jobs|events|platform|mail|use-cases|secrets)/",
        // A platform driver may hand the admin API routes of its own (the simulator's controls): the
        // driver interface names the Fastify instance by type only, and the simulator's routes file is
        // loaded by the API alone (see http-is-a-leaf-layer).
        pathNot: ["^src/platform/driver[.]ts$", "^src/platform/simulated/admin-routes[.]ts$"],
      },
      to: { path: "node_modules/(fastify|@fastify)/" },
    },
    {
      name: "domain-not-above-platform",
      comment:
        "The stock ledger and the catalog are domain code; src/platform (connectors, push and sync jobs) depends on the domain, never the reverse.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { path: "^src/platform/" },
    },
    {
      name: "catalog-below-stock",
      comment: "The stock module reads the catalog (variants, locations), not the reverse: no cycle between them.",
      severity: "error",
      from: { path: "^src/domain/catalog/" },
      to: { path: "^src/domain/stock/" },
    },
    {
      name: "simulated-platform-behind-registry",
      comment:
        "Only the connector registry (and the simulated platform itself) reaches the simulated platform.",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/platform/simulated/", "^src/platform/registry[.]ts$"] },
      to: { path: "^src/platform/simulated/" },
    },
    {
      name: "use-cases-above-domain",
      comment: "A use case spans domain modules; a domain module never calls a use case (that is the cycle it breaks).",
      severity: "error",
      from: { path: "^src/(domain|platform|jobs|events|db)/" },
      to: { path: "^src/use-cases/" },
    },
    {
      name: "core-below-entry-points",
      comment:
        "The admin API, the console, the CLI and the module wiring sit on top: domain, platform, jobs, events and db code never import them.",
      severity: "error",
      from: { path: "^src/(domain|platform|jobs|events|db|use-cases|secrets|mail)/" },
      to: { path: "^src/(admin|console|cli|modules)/" },
    },
    {
      name: "db-below-domain",
      comment: "src/db is the database's plumbing (connection, migrations, table types, paging): it knows no module.",
      severity: "error",
      from: { path: "^src/db/" },
      to: {
        path: "^src/(domain|platform|use-cases|jobs|events)/",
        // AppError is the one error type every layer throws (paging refuses a bad cursor with it); the
        // embedded database's upkeep is a periodic task, named by type only.
        pathNot: ["^src/domain/errors[.]ts$"],
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "no-module-cycles",
      comment: "Modules must not depend on each other in a circle.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".json"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
