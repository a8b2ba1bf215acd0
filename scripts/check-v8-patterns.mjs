#!/usr/bin/env node
// Two ways of writing code that kept finished requests alive through the young generation's
// collections on Node 20 (V8 11.3), refused where code runs per request (docs/developing.md, the rule
// under "Line-heavy routes"; docs/reliability.md 5b, nineteenth session). Run by `npm run lint`.
//
// 1. A function literal assigned to a property (`x.cb = () => …`, `this.f = function () {…}`,
//    `x[k] = async () => …`, also `??=`, `||=`, `&&=`): V8 allocates that closure in the old
//    generation, where it outlives the call and holds its context (the request, its answer, its
//    Buffers) until a full collection. Make it in a `const` first, or pass it as an argument or in an
//    object literal: those are allocated young.
// 2. A generator function, class or constructor declared inside a function: each call makes a new map
//    for the objects it creates, maps live in the old generation and point back to the closure. Declare
//    it at module level.
//
// Code at module level (and in class static blocks) runs once and is not checked. ALLOWED lists the
// places inside functions that run once (at start, per process or per thread), each with its reason.
// The checker fails on an ALLOWED entry that matches nothing, so the list cannot go stale.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

// The tree to check: the repository, or the one given (the checker's own test runs it on a copy).
const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, ".."));

/**
 * What is checked: everything under src/ that the service's processes run, except what is not the
 * service (the command-line client) and what runs once before the service answers (migrations).
 */
const SCOPE = "src";
const OUT_OF_SCOPE = [
  // The command-line client: a process per command, no requests to serve.
  "src/cli/",
  // Migrations run once, at start or from the CLI, before the service answers.
  "src/db/migrations/",
];

/**
 * Places inside functions that run once, not per request: file, the name of the innermost named
 * function around the finding, its kind, and why it is allowed.
 */
const ALLOWED = [
  {
    file: "src/db/database.ts",
    inside: "sendHotQueriesPrepared",
    kind: "property-function",
    reason:
      "once per PostgreSQL connection, when the pool opens it, not per request; its context holds " +
      "only the client and its bound query, which live as long as the connection anyway",
  },
];

const KINDS = {
  "property-function": "function literal assigned to a property (make it in a const first)",
  "nested-generator": "generator function declared inside a function (declare it at module level)",
  "nested-class": "class declared inside a function (declare it at module level)",
  "nested-constructor":
    "constructor function (uses `this` or is called with `new`) declared inside a function (declare it at module level)",
};

function sourceFiles(dir) {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const rel = path.posix.join(dir, name);
    if (OUT_OF_SCOPE.some((prefix) => `${rel}/`.startsWith(prefix) || rel.startsWith(prefix))) return [];
    if (statSync(path.join(root, rel)).isDirectory()) return sourceFiles(rel);
    return /\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith(".d.ts") ? [rel] : [];
  });
}

/** A node that starts a function's own code: what runs per call of something. */
function isFunctionLike(node) {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** The function the node is inside, or undefined at module level (class static blocks count as that). */
function enclosingFunction(node) {
  for (let at = node.parent; at; at = at.parent) {
    if (ts.isClassStaticBlockDeclaration(at)) return undefined;
    if (isFunctionLike(at)) return at;
  }
  return undefined;
}

/** A name for the innermost named function around a node, for messages and ALLOWED. */
function nameOf(fn) {
  for (let at = fn; at; at = at.parent) {
    if (!isFunctionLike(at)) continue;
    if (ts.isConstructorDeclaration(at)) {
      const cls = at.parent;
      return `${cls.name ? cls.name.text : "(class)"}.constructor`;
    }
    if (at.name && (ts.isIdentifier(at.name) || ts.isPrivateIdentifier(at.name))) {
      const cls = ts.isClassLike(at.parent) && at.parent.name ? `${at.parent.name.text}.` : "";
      return `${cls}${at.name.text}`;
    }
    if (ts.isVariableDeclaration(at.parent) && ts.isIdentifier(at.parent.name)) return at.parent.name.text;
    if (ts.isPropertyAssignment(at.parent) && ts.isIdentifier(at.parent.name)) return at.parent.name.text;
  }
  return "(anonymous)";
}

/** The expression under parentheses and TypeScript's casts (`as`, `satisfies`, `!`, `<T>`). */
function unwrap(node) {
  let at = node;
  while (
    ts.isParenthesizedExpression(at) ||
    ts.isAsExpression(at) ||
    ts.isSatisfiesExpression(at) ||
    ts.isNonNullExpression(at) ||
    ts.isTypeAssertionExpression(at)
  ) {
    at = at.expression;
  }
  return at;
}

const ASSIGNMENTS = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
]);

/** Whether a function's own body (not nested non-arrow functions or classes) mentions `this`. */
function usesOwnThis(fn) {
  let found = false;
  const visit = (node) => {
    if (found) return;
    if (node.kind === ts.SyntaxKind.ThisKeyword) {
      found = true;
      return;
    }
    if (node !== fn && (ts.isClassLike(node) || (isFunctionLike(node) && !ts.isArrowFunction(node)))) return;
    ts.forEachChild(node, visit);
  };
  if (fn.body) visit(fn.body);
  return found;
}

function findingsIn(file) {
  const text = readFileSync(path.join(root, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const newed = new Set();
  const nestedFunctions = [];
  const add = (node, kind, around) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push({ file, line: line + 1, kind, inside: nameOf(around) });
  };
  const visit = (node) => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) newed.add(node.expression.text);
    const around = enclosingFunction(node);
    if (around) {
      if (
        ts.isBinaryExpression(node) &&
        ASSIGNMENTS.has(node.operatorToken.kind) &&
        (ts.isPropertyAccessExpression(unwrap(node.left)) || ts.isElementAccessExpression(unwrap(node.left)))
      ) {
        const value = unwrap(node.right);
        if (ts.isArrowFunction(value) || ts.isFunctionExpression(value))
          add(node, "property-function", around);
      }
      if (
        (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node)) &&
        node.asteriskToken
      ) {
        add(node, "nested-generator", around);
      } else if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
        add(node, "nested-class", around);
      } else if (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node)) {
        nestedFunctions.push({ node, around });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // A nested plain function is a constructor if it uses its own `this` or the file calls it with `new`.
  for (const { node, around } of nestedFunctions) {
    const name = node.name?.text;
    if (usesOwnThis(node) || (name && newed.has(name))) add(node, "nested-constructor", around);
  }
  return found;
}

const findings = sourceFiles(SCOPE).flatMap(findingsIn);
const used = new Set();
const problems = [];
for (const f of findings) {
  const allowed = ALLOWED.findIndex((a) => a.file === f.file && a.inside === f.inside && a.kind === f.kind);
  if (allowed >= 0) used.add(allowed);
  else problems.push(`${f.file}:${f.line} in ${f.inside}: ${KINDS[f.kind]}`);
}
ALLOWED.forEach((a, i) => {
  if (!a.reason?.trim())
    problems.push(`ALLOWED entry without a reason: ${a.file} in ${a.inside} (${a.kind})`);
  if (!used.has(i)) problems.push(`ALLOWED entry matches nothing: ${a.file} in ${a.inside} (${a.kind})`);
});

if (problems.length) {
  console.error(`V8 patterns: ${problems.length} in code run per request:`);
  for (const p of problems) console.error(`  ${p}`);
  console.error(
    "V8 keeps these in the old generation, holding a request's objects until a full collection " +
      "(docs/developing.md; docs/reliability.md 5b). Fix it, or if it runs once, add it to ALLOWED in " +
      "scripts/check-v8-patterns.mjs with the reason.",
  );
  process.exit(1);
}
console.log(`V8 patterns: none in code run per request (allowed, as run once: ${ALLOWED.length}).`);
